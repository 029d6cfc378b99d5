/**
 * The controller's own credentials failing: their circuit opens, and closes when the control plane answers
 * again. The running controller logs each transition once and counts it on /metrics by the credential
 * identity's digest; the key appears in neither.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Operator } from '../src/operator.ts';
import { DEFAULT_API_KEY } from '../src/simulator/index.ts';
import { externalImage } from './support/agd-objects.ts';
import { createAgd, eventually, type Harness, startHarness, waitReady } from './support/harness.ts';

let h: Harness;
let operator: Operator;

beforeAll(async () => {
  h = await startHarness('circuit', { withOperator: false });
  operator = await h.startOperator();
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

const transitions = async (): Promise<Map<string, number>> => {
  const text = await (await fetch(`http://127.0.0.1:${operator.httpPort}/metrics`)).text();
  expect(text).not.toContain(DEFAULT_API_KEY);
  const counts = new Map<string, number>();
  for (const m of text.matchAll(
    /^agent_operator_controlplane_circuit_transitions_total\{identity="([0-9a-f]+)",state="(open|closed)"\} (\d+)$/gm,
  )) {
    counts.set(`${m[1]}/${m[2]}`, Number(m[3]));
  }
  return counts;
};

it('an opening and a closing of the default credentials are each logged once and counted by the identity digest', async () => {
  await createAgd(h, externalImage('steady'));
  await waitReady(h, 'steady');
  const remove = h.sim.addFault({ status: 503 });
  const opened = await eventually(async () => {
    const counts = await transitions();
    return [...counts].find(([k]) => k.endsWith('/open'));
  }, 'the circuit opens');
  const identity = opened[0].split('/')[0] as string;
  expect(opened[1]).toBe(1);
  remove();
  await eventually(
    async () => (await transitions()).get(`${identity}/closed`) === 1,
    'the circuit closes once the control plane answers',
    30_000,
  );
  expect((await transitions()).get(`${identity}/open`)).toBe(1);
  await waitReady(h, 'steady', 30_000);

  const lines = h.logs.filter((l) => l.includes('control-plane circuit'));
  expect(lines.map((l) => JSON.parse(l) as { msg: string; identity: string })).toEqual([
    expect.objectContaining({ msg: expect.stringMatching(/^control-plane circuit opened/), identity }),
    expect.objectContaining({ msg: expect.stringMatching(/^control-plane circuit closed/), identity }),
  ]);
  expect(h.logs.join('\n')).not.toContain(DEFAULT_API_KEY);
});
