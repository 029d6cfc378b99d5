/**
 * A credential's circuit opening and closing, as an operator sees them: the pools' breaker against the
 * simulator answering 503 and then healthy again, reported through circuitReporter into the operator's
 * metrics and a log. One line and one count per transition, by the identity's digest, never the key.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OperatorMetrics } from '../metrics.ts';
import { type Simulator, startSimulator } from '../simulator/index.ts';
import { circuitReporter } from './circuit-report.ts';
import { credentialsKey } from './credentials.ts';
import { CircuitOpenError } from './errors.ts';
import { ControlPlanePools } from './pools.ts';

const API_KEY = 'circuit-key-0123456789';
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ apiKeys: [API_KEY] });
});
afterAll(async () => {
  await sim.close();
});

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((r) => setTimeout(r, 20));
};

it('logs and counts each opening and closing once, per identity digest, without the key', async () => {
  const lines: { level: number; msg: string; identity?: string; controlPlane?: string }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const metrics = new OperatorMetrics();
  const pools = new ControlPlanePools({
    breaker: { threshold: 3, baseOpenMs: 50, maxOpenMs: 50 },
    clientDefaults: { getRetries: 0 },
    onCircuit: circuitReporter(pino({ level: 'info' }, sink), metrics.controlPlaneCircuitTransitions),
  });
  const credentials = { baseUrl: sim.url, apiKey: API_KEY };
  const identity = credentialsKey(credentials);
  const client = pools.clientFor(credentials);
  const count = async (state: string) => {
    const metric = await metrics.controlPlaneCircuitTransitions.get();
    return metric.values.find((v) => v.labels.identity === identity && v.labels.state === state)?.value ?? 0;
  };

  const remove = sim.addFault({ status: 503 });
  for (let i = 0; i < 3; i++) await expect(client.listListeners()).rejects.toThrow();
  await expect(client.listListeners()).rejects.toBeInstanceOf(CircuitOpenError);
  // The probe fails a few times more: still one opening.
  const probes = () => sim.requests({ route: '/v2/deployments' }).length;
  await until(() => probes() >= 3);
  expect(await count('open')).toBe(1);
  expect(await count('closed')).toBe(0);

  remove();
  await until(() => !pools.parked(credentials));
  await client.listListeners();
  expect(await count('open')).toBe(1);
  expect(await count('closed')).toBe(1);

  const reported = lines.filter((l) => l.msg.startsWith('control-plane circuit'));
  expect(reported.map((l) => [l.level, l.msg.split(':')[0], l.identity, l.controlPlane])).toEqual([
    [40, 'control-plane circuit opened', identity, new URL(sim.url).origin],
    [30, 'control-plane circuit closed', identity, new URL(sim.url).origin],
  ]);
  expect(JSON.stringify(lines)).not.toContain(API_KEY);
  expect(await metrics.registry.metrics()).not.toContain(API_KEY);
  await pools.close();
});
