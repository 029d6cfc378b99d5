/**
 * SandboxTemplates against an allowed control plane that answers every listing page just inside the call
 * deadline, for ever: four objects of one namespace on four credential identities, as many as the shared
 * template workers; a healthy template in another namespace.
 * Each of their passes ends at the pass deadline (--reconcile-timeout) instead of walking up to 200 pages
 * (about 97 minutes at a 30 s call deadline), and the template queue's tenant fairness and reserve workers
 * start a healthy template at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, SANDBOX_TEMPLATE, VERSION } from '../src/api/group.ts';
import type { SandboxTemplate } from '../src/api/sandboxtemplate.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { eventually, type Harness, putSecret, startHarness } from './support/harness.ts';
import { createTestNamespace } from './support/kube.ts';

/** Each page is answered this long after it is asked for: inside the 2 s call deadline set below. */
const PAGE_DELAY_MS = 1_500;
const SLOW = [1, 2, 3, 4];
const SBT_PATH = (ns: string) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${SANDBOX_TEMPLATE.plural}`;

/** A control plane whose template listing never ends: every page full, each a little under the deadline. */
function startSlowPager() {
  const pages = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = String(req.headers['x-api-key']);
    pages.set(key, (pages.get(key) ?? 0) + 1);
    const limit = Number(url.searchParams.get('limit') ?? '100');
    const offset = Number(url.searchParams.get('offset') ?? '0');
    const templates = Array.from({ length: limit }, (_, i) => ({
      id: `t-${offset + i}`,
      name: `slow-${offset + i}`,
    }));
    const timer = setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ templates, offset: offset + limit }));
    }, PAGE_DELAY_MS);
    res.on('close', () => clearTimeout(timer));
  });
  return {
    pages,
    start: () =>
      new Promise<string>((r) =>
        server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function createSbt(h: Harness, name: string, spec: Record<string, unknown>): Promise<void> {
  await kubeRequest(h.access, {
    method: 'POST',
    path: SBT_PATH(h.ns),
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: SANDBOX_TEMPLATE.kind, metadata: { name }, spec },
  });
}

const getSbt = async (h: Harness, name: string) =>
  (await kubeRequest(h.access, { method: 'GET', path: `${SBT_PATH(h.ns)}/${name}` })) as SandboxTemplate;

/**
 * A healthy namespace (h) and an attacker's (attacker) with four Secrets on the slow server, the operator
 * watching both; `reconcileTimeout` is the pass deadline.
 */
function withSlowTenants(prefix: string, reconcileTimeout: string) {
  const world = {
    h: undefined as unknown as Harness,
    attacker: undefined as unknown as Harness,
    slow: startSlowPager(),
  };
  beforeAll(async () => {
    const slowUrl = await world.slow.start();
    world.h = await startHarness(prefix, {
      simulator: { templates: [{ name: 'healthy', image: 'busybox' }] },
      withOperator: false,
    });
    world.attacker = { ...world.h, ns: await createTestNamespace(`${prefix}-attacker`) };
    for (const i of SLOW) {
      await putSecret(world.attacker, `slow-${i}`, { apiKey: `slow-key-${i}`, baseUrl: slowUrl });
    }
    await world.h.startOperator({
      WATCH_NAMESPACES: `${world.h.ns},${world.attacker.ns}`,
      // The administrator allows it: an allowed control plane may still misbehave.
      ALLOWED_CONTROL_PLANE_URLS: slowUrl,
      WORKERS: '4',
      CONTROL_PLANE_TIMEOUT: '2s',
      RECONCILE_TIMEOUT: reconcileTimeout,
    });
  }, 60_000);
  afterAll(async () => {
    await world.h?.stop();
    await world.slow.close();
  });
  return world;
}

/** Creates the four slow objects and waits until each has a listing under way (a worker inside it). */
async function occupyWorkers(h: Harness, slow: ReturnType<typeof startSlowPager>) {
  for (const i of SLOW) {
    await createSbt(h, `slow-${i}`, {
      templateName: 'anything',
      credentialsSecretRef: { name: `slow-${i}` },
    });
  }
  await eventually(
    async () => (SLOW.every((i) => (slow.pages.get(`slow-key-${i}`) ?? 0) > 0) ? true : undefined),
    'a listing under way for each slow identity',
    30_000,
  );
}

async function healthyBecomesReady(h: Harness) {
  await createSbt(h, 'healthy', { templateName: 'healthy', image: 'busybox' });
  const healthy = await eventually(
    async () => {
      const obj = await getSbt(h, 'healthy');
      const ready = obj.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'True' ? obj : undefined;
    },
    'healthy Ready',
    30_000,
  );
  expect(healthy.status?.templateId).toBeDefined();
}

describe('the template queue: tenant fairness and reserve workers (a pass deadline too long to help)', () => {
  const world = withSlowTenants('sbt-bulkheads', '10m');
  it('a healthy template becomes Ready while four identities hold every shared worker', async () => {
    await occupyWorkers(world.attacker, world.slow);
    await healthyBecomesReady(world.h);
  });
});

describe('template passes under the pass deadline', () => {
  const world = withSlowTenants('sbt-deadline', '5s');
  it('each slow pass ends at the pass deadline and says so, long before its listing would', async () => {
    await occupyWorkers(world.attacker, world.slow);
    for (const i of SLOW) {
      const obj = await eventually(
        async () => {
          const o = await getSbt(world.attacker, `slow-${i}`);
          const said = o.status?.conditions?.some((c) => c.message.includes('reached its deadline'));
          return said ? o : undefined;
        },
        `slow-${i} reports the pass deadline`,
        30_000,
      );
      expect(obj.status?.conditions?.find((c) => c.type === 'Ready')?.status).not.toBe('True');
    }
    // No listing walked anywhere near its 200-page budget: each pass gave up after a few pages.
    for (const i of SLOW) expect(world.slow.pages.get(`slow-key-${i}`) ?? 0).toBeLessThan(200);
    await healthyBecomesReady(world.h);
  });
});
