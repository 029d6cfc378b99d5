/**
 * Every metric the chart's alerts and dashboard use is one a running controller exposes: the controller
 * as its own process (node src/main.ts) against the run's API server and the simulator, scraped once an
 * object is Ready (so the histograms and the object gauges have samples), with --sharding=auto (as one
 * member it exposes what an unsharded replica does, and the shard metrics). An alert on a metric nobody
 * exposes never fires, and promtool cannot tell.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../src/simulator/index.ts';
import { externalImage } from './support/agd-objects.ts';
import { type ControllerProcess, startControllerProcess } from './support/controller-process.ts';
import { createAgd, type Harness, startHarness, waitReady } from './support/harness.ts';
import { testKubeconfigPath } from './support/kube.ts';
import { exposedNames, expressions, missingMetrics, renderMonitoring } from './support/monitoring.ts';

let h: Harness;
let controller: ControllerProcess | undefined;
let exposition: string;
const output: string[] = [];

beforeAll(async () => {
  h = await startHarness('metric-names', { withOperator: false });
  controller = startControllerProcess(
    {
      KUBECONFIG: testKubeconfigPath(),
      CONTROL_PLANE_URL: h.sim.url,
      CONTROL_PLANE_API_KEY: DEFAULT_API_KEY,
      WATCH_NAMESPACES: h.ns,
      POLL_INTERVAL: '2s',
      REVISION_POLL_INTERVAL: '200ms',
      // Sharded, as one member: every metric of the unsharded mode, and the shard metrics besides.
      SHARDING: 'auto',
      POD_NAMESPACE: h.ns,
      HTTP_PORT: '0',
      LOG_LEVEL: 'info',
    },
    output,
  );
  const listening = await controller.waitForLine((line) =>
    line.includes('health and metrics endpoints listening'),
  );
  const port = (JSON.parse(listening) as { port: number }).port;
  await createAgd(h, externalImage('scraped'));
  await waitReady(h, 'scraped');
  exposition = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
});

afterAll(async () => {
  await controller?.kill();
  await h?.stop();
});

describe('metrics the alerts and the dashboard use', () => {
  it('are all exposed by the running controller', async () => {
    const monitoring = await renderMonitoring();
    const exprs = expressions(monitoring);
    expect(exprs.length).toBeGreaterThan(20);
    expect(missingMetrics(exprs, exposedNames(exposition))).toEqual([]);
  });

  it('would name a metric a rule used that the controller does not expose', () => {
    const exposed = exposedNames(exposition);
    const rule = 'sum(rate(agent_operator_reconcile_total{job="x", result="error"}[5m])) > 0';
    expect(missingMetrics([rule, 'absent(up{job="x"} == 1)'], exposed)).toEqual([
      'agent_operator_reconcile_total',
    ]);
  });
});
