/**
 * A control plane that never ends a listing cannot take the controller's memory (issue "Tenants walled
 * off"): the controller runs as the image runs it (its node flags and allocator settings), one namespace's
 * allowed credentials point at a server answering every listing with a full page of about 1.9 MiB and a
 * next offset, forever, and the controller's peak RSS stays under the chart's memory limit while a healthy
 * namespace converges beside it.
 */

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ControllerProcess, startControllerProcess } from '../bench/controller-process.ts';
import { kbField } from '../bench/process-memory.ts';
import { DEFAULT_API_KEY } from '../src/simulator/index.ts';
import { deploymentAnswer } from '../src/simulator/test-support.ts';
import { externalImage } from './support/agd-objects.ts';
import {
  condition,
  createAgd,
  eventually,
  getAgd,
  type Harness,
  putSecret,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { createTestNamespace, testKubeconfigPath } from './support/kube.ts';

/** The chart's memory limit (helm values: resources.limits.memory 288Mi). */
const CHART_LIMIT_BYTES = 288 * 1024 * 1024;
const PAGE_ITEMS = 100;
const PADDING = 'x'.repeat(19_000);

const agd = (name: string, credentials?: string) =>
  externalImage(name, credentials ? { credentialsSecretRef: { name: credentials } } : {});

let h: Harness;
let attacker: Harness;
let controller: ControllerProcess;
let pages = 0;
const server = createServer((req, res) => {
  req.resume();
  const url = new URL(req.url ?? '/', 'http://x');
  if (req.method !== 'GET' || url.pathname !== '/v2/deployments') {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"not found"}');
    return;
  }
  pages += 1;
  const offset = Number(url.searchParams.get('offset') ?? 0);
  const name = url.searchParams.get('name_contains') ?? 'x';
  // Every item's name contains the one looked up; none is it exactly; each carries 19 KB of padding.
  const resources = Array.from({ length: PAGE_ITEMS }, (_, i) =>
    deploymentAnswer(`endless-${offset + i}`, { name: `${name}-${offset + i}`, padding: PADDING }),
  );
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ resources, offset: offset + PAGE_ITEMS }));
});

beforeAll(async () => {
  h = await startHarness('tenant-memory', { withOperator: false });
  attacker = { ...h, ns: await createTestNamespace('tenant-memory-endless') };
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const endless = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await putSecret(attacker, 'endless', { apiKey: 'attacker-key-0001', baseUrl: endless });
  for (const i of [1, 2, 3, 4]) await createAgd(attacker, agd(`endless-${i}`, 'endless'));
  controller = await startControllerProcess({
    script: 'src/main.ts',
    logFile: join(tmpdir(), `tenant-memory-${process.pid}.log`),
    env: {
      KUBECONFIG: testKubeconfigPath(),
      CONTROL_PLANE_URL: h.sim.url,
      CONTROL_PLANE_API_KEY: DEFAULT_API_KEY,
      WATCH_NAMESPACES: `${h.ns},${attacker.ns}`,
      ALLOWED_CONTROL_PLANE_URLS: endless,
      LEADER_ELECT: 'false',
      POLL_INTERVAL: '1s',
      REVISION_POLL_INTERVAL: '200ms',
      LOG_LEVEL: 'info',
    },
  });
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await h?.stop();
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

it("endless pages: each object waits with the budget named, a healthy namespace converges, and the controller's peak RSS stays under the chart's limit", async () => {
  for (const i of [1, 2, 3]) await createAgd(h, agd(`healthy-${i}`));
  await Promise.all([1, 2, 3].map((i) => waitReady(h, `healthy-${i}`, 60_000)));
  for (const i of [1, 2, 3, 4]) {
    const reconciling = await eventually(
      async () => {
        const c = condition(await getAgd(attacker, `endless-${i}`), 'Reconciling');
        return c?.reason === 'BudgetExceeded' ? c : undefined;
      },
      `endless-${i} Reconciling BudgetExceeded`,
      60_000,
    );
    expect(reconciling.message).toMatch(/passed \d+ bytes|did not end within \d+ pages/);
  }
  const peak = kbField(readFileSync(`/proc/${controller.pid}/status`, 'utf8'), 'VmHWM');
  process.stdout.write(
    `tenant-memory: ${pages} pages of ${PAGE_ITEMS} items served; controller peak RSS ${(peak / 1048576).toFixed(0)} MiB (limit ${CHART_LIMIT_BYTES / 1048576} MiB)\n`,
  );
  expect(peak).toBeLessThan(CHART_LIMIT_BYTES);
});
