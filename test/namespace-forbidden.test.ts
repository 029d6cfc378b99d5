/**
 * Namespaces sync independently (issue 15): the operator, with the chart's RBAC for one namespace only,
 * is told to watch a second one it may not list (403). The first still reconciles; the second is
 * reported in /readyz, in a metric and in the log.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { type Operator, startOperator } from '../src/operator.ts';
import { DEFAULT_API_KEY, defaultListeners } from '../src/simulator/index.ts';
import { installChartAs, lineSink } from './packaging-helpers.ts';
import { createAgd, eventually, type Harness, startHarness, waitReady } from './support/harness.ts';
import { createTestNamespace } from './support/kube.ts';

let h: Harness;
let operator: Operator | undefined;
let forbidden: string;
const logs: string[] = [];

beforeAll(async () => {
  h = await startHarness('ns-allowed', { withOperator: false });
  forbidden = await createTestNamespace('ns-forbidden');
  const releaseNs = await createTestNamespace('ns-release');
  const release = 'nsfb';
  const access = await installChartAs(release, releaseNs, [`watchNamespaces={${h.ns}}`]);
  operator = await startOperator({
    config: loadConfig([], {
      CONTROL_PLANE_URL: h.sim.url,
      CONTROL_PLANE_API_KEY: DEFAULT_API_KEY,
      WATCH_NAMESPACES: `${h.ns},${forbidden}`,
      POLL_INTERVAL: '1s',
      REVISION_POLL_INTERVAL: '200ms',
      LEADER_ELECT: 'true',
      POD_NAMESPACE: releaseNs,
      LEADER_ELECTION_ID: `${release}-agent-deployment-operator`,
      HTTP_PORT: '0',
      LOG_LEVEL: 'debug',
    }),
    access,
    logger: pino({ level: 'debug' }, lineSink(logs)),
  });
}, 120_000);

afterAll(async () => {
  await operator?.stop(1_000);
  await h?.stop();
});

it('a namespace that cannot be listed is reported, and the others reconcile', async () => {
  await createAgd(h, {
    metadata: { name: 'still-served' },
    spec: {
      source: 'external_image',
      sourceConfig: { listenerId: defaultListeners()[0]?.id },
      sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
    },
  });
  await waitReady(h, 'still-served', 60_000);

  const base = `http://127.0.0.1:${operator?.httpPort}`;
  const readyz = await fetch(`${base}/readyz`);
  const body = await readyz.text();
  expect(readyz.status).toBe(200);
  expect(body).toContain(
    `namespace ${forbidden} not synced for /apis/deploy.agents.dev/v1alpha1/agentdeployments`,
  );
  expect(body).toMatch(/forbidden|403/i);
  expect(body).not.toContain(`namespace ${h.ns} `);

  const metrics = await (await fetch(`${base}/metrics`)).text();
  expect(metrics).toMatch(
    new RegExp(`agent_operator_namespace_synced\\{namespace="${forbidden}",informer="[^"]+"\\} 0`),
  );
  expect(metrics).toMatch(
    new RegExp(`agent_operator_namespace_synced\\{namespace="${h.ns}",informer="[^"]+"\\} 1`),
  );

  await eventually(
    async () => logs.some((l) => l.includes('namespace cannot be listed') && l.includes(forbidden)),
    'the log names the namespace',
  );
});
