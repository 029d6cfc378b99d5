/**
 * Deployment snapshots held per namespace (issue 32 item 4): a namespace's own control plane answers every
 * id with a deployment just under the answer's 2 MiB bound, so each of its objects would make the batched
 * poll hold that much. Past --namespace-deployment-budget its objects wait with BudgetExceeded naming the
 * setting, and nothing of their deployments is held; a healthy namespace beside it stays Ready.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
import { createTestNamespace } from './support/kube.ts';

/** Each deployment's answer: about 1.5 MiB, under the 2 MiB bound of one answer. */
const PADDING = 'x'.repeat(1536 * 1024);
const OBJECTS = [1, 2, 3, 4, 5];

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * A control plane that deploys what it is asked (at once: its revision is active), and answers every
 * read of a deployment with it and 1.5 MiB in a field the controller reads (the commit's sha).
 */
const deployments = new Map<string, Record<string, unknown>>();
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => {
    body += c.toString();
  });
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://x');
    const byId = /^\/v2\/deployments\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'POST' && url.pathname === '/v2/deployments') {
      const request = JSON.parse(body) as Record<string, Record<string, unknown>>;
      const id = `huge-${deployments.size + 1}`;
      const deployment = {
        ...request,
        id,
        source_revision_config: { ...request.source_revision_config, repo_commit_sha: PADDING },
        secrets: [],
        created_at: '2026-01-01T00:00:00Z',
        updated_at: '2026-01-01T00:00:00Z',
        status: 'READY',
        latest_revision_id: `rev-${id}`,
        active_revision_id: `rev-${id}`,
      };
      deployments.set(id, deployment);
      json(res, 201, deployment);
    } else if (req.method === 'GET' && url.pathname === '/v2/deployments') {
      const ids = url.searchParams.getAll('deployment_ids');
      const name = url.searchParams.get('name_contains');
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const resources = [...deployments.values()]
        .filter((d) => (ids.length > 0 ? ids.includes(d.id as string) : !name || `${d.name}`.includes(name)))
        .slice(0, limit);
      json(res, 200, { resources, offset: 0 });
    } else if (req.method === 'GET' && byId && deployments.has(byId[1] as string)) {
      json(res, 200, deployments.get(byId[1] as string));
    } else {
      json(res, 404, { detail: 'not found' });
    }
  });
});

let h: Harness;
let hostile: Harness;

beforeAll(async () => {
  h = await startHarness('snapshots', { withOperator: false });
  hostile = { ...h, ns: await createTestNamespace('snapshots-hostile') };
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await putSecret(hostile, 'own', { apiKey: 'hostile-key-0001', baseUrl: url });
  await h.startOperator({
    WATCH_NAMESPACES: [h.ns, hostile.ns].join(','),
    ALLOWED_CONTROL_PLANE_URLS: url,
    // Room for two of the hostile deployments, not three.
    NAMESPACE_DEPLOYMENT_BUDGET: '4Mi',
  });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

it('past --namespace-deployment-budget the objects whose deployment does not fit wait with BudgetExceeded naming it; a healthy namespace stays Ready', async () => {
  for (const i of OBJECTS) {
    await createAgd(hostile, externalImage(`huge-${i}`, { credentialsSecretRef: { name: 'own' } }));
  }
  await createAgd(h, externalImage('healthy'));
  await waitReady(h, 'healthy', 60_000);

  // Two fit (1.5 MiB each in 4 MiB), whichever came first; the three others never do.
  const reasons = await eventually(
    async () => {
      const found = await Promise.all(
        OBJECTS.map(async (i) => condition(await getAgd(hostile, `huge-${i}`), 'Reconciling')),
      );
      const exceeded = found.filter((c) => c?.reason === 'BudgetExceeded');
      return exceeded.length === 3 ? exceeded : undefined;
    },
    'three of the five hostile objects BudgetExceeded',
    60_000,
  );
  for (const c of reasons) {
    expect(c?.message).toContain('--namespace-deployment-budget');
    expect(c?.message).toContain(`namespace ${hostile.ns}`);
  }
  const ready = await Promise.all(
    OBJECTS.map(async (i) => condition(await getAgd(hostile, `huge-${i}`), 'Ready')?.status),
  );
  expect(ready.filter((s) => s === 'True')).toHaveLength(2);
  expect(condition(await getAgd(h, 'healthy'), 'Ready')?.status).toBe('True');
});
