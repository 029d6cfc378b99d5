/** The client against the simulator over real HTTP on loopback. */
import { randomUUID } from 'node:crypto';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { outcomeOf } from '../runtime/outcome.ts';
import { startSimulator } from '../simulator/index.ts';
import { OPERATOR_VERSION, userAgent } from '../version.ts';
import { ControlPlaneClient, type ControlPlaneClientOptions, type RequestEvent } from './client.ts';
import type { Credentials } from './credentials.ts';
import {
  BadRequestError,
  ControlPlaneError,
  CredentialsConfigError,
  MalformedResponseError,
  NotFoundError,
  outcomeOfControlPlaneError,
  RateLimitedError,
  UnauthorizedError,
  UnavailableError,
  ValidationFailedError,
} from './errors.ts';
import type { DeploymentCreateRequest } from './schemas.ts';

const API_KEY = 'sim-api-key';
const BEARER = 'bearer-token-for-tests-0001';
const TENANT = '7f6b4c1e-2a9d-4e0b-9c1a-5d3e8f7a6b21';
const SECRET_VALUE = 'super-secret-value-0042';

type Sim = Awaited<ReturnType<typeof startSimulator>>;
let sim: Sim;
let client: ControlPlaneClient;
const openClients: ControlPlaneClient[] = [];

function makeClient(
  credentials: Partial<Credentials> = { apiKey: API_KEY },
  options: Omit<ControlPlaneClientOptions, 'credentials'> = {},
): ControlPlaneClient {
  const c = new ControlPlaneClient({
    credentials: { baseUrl: sim.url, ...credentials },
    getRetries: 2,
    retryDelay: { baseMs: 1, maxMs: 50 },
    ...options,
  });
  openClients.push(c);
  return c;
}

/** Requests the simulator received for one route template. */
function received(method: string, route: string) {
  return sim.requests({ method, route });
}

type Sent = { path: string; headers: Record<string, string> };

/** A real connection pool that also notes each request's path and headers as the client sent them. */
function recordingDispatcher(sent: Sent[]): Dispatcher {
  const agent = new Agent();
  agents.push(agent);
  return agent.compose((dispatch) => (opts, handler) => {
    sent.push({ path: opts.path, headers: { ...(opts.headers as Record<string, string>) } });
    return dispatch(opts, handler);
  });
}
const agents: Agent[] = [];

function uniqueName(prefix = 'app'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

function imageDeployment(name = uniqueName(), cpu = 1): DeploymentCreateRequest {
  return {
    name,
    source: 'external_image',
    source_config: { resource_spec: { cpu, memory_mb: 512 } },
    source_revision_config: { image_uri: 'registry.example.test/agent:1.0.0' },
    secrets: [{ name: 'OPENAI_API_KEY', value: SECRET_VALUE }],
  };
}

function repoDeployment(name = uniqueName()): DeploymentCreateRequest {
  return {
    name,
    source: 'repo_host',
    source_config: { repo_url: 'https://git.example.test/team/agent', deployment_type: 'dev' },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    secrets: [],
  };
}

async function rejection(promise: Promise<unknown>): Promise<ControlPlaneError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ControlPlaneError);
  return err as ControlPlaneError;
}

beforeAll(async () => {
  sim = await startSimulator({ bearerTokens: [BEARER], tenantId: TENANT });
  client = makeClient();
});

afterEach(() => {
  sim.clearFaults();
  sim.resetRequests();
});

afterAll(async () => {
  await Promise.all(openClients.map((c) => c.close()));
  await Promise.all(agents.map((a) => a.close()));
  await sim.close();
});

describe('User-Agent', () => {
  it.each([
    { userAgent: undefined, sent: `agent-deployment-operator/${OPERATOR_VERSION}` },
    {
      userAgent: userAgent('op-0_ab12cd34'),
      sent: `agent-deployment-operator/${OPERATOR_VERSION} (op-0_ab12cd34)`,
    },
  ])('every call carries $sent, and the simulator records it', async ({ userAgent: ua, sent }) => {
    const c = makeClient({ apiKey: API_KEY }, ua ? { userAgent: ua } : {});
    await c.listDeployments({ limit: 1 });
    expect(received('GET', '/v2/deployments').map((r) => r.userAgent)).toEqual([sent]);
  });
});

describe('deployments', () => {
  it('creates, reads, patches, lists revisions and deletes', async () => {
    const created = await client.createDeployment(imageDeployment());
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.latest_revision_id).not.toBeNull();

    const read = await client.getDeployment(created.id);
    expect(read.name).toBe(created.name);
    expect(read.source).toBe('external_image');

    const first = await client.getRevision(created.id, created.latest_revision_id ?? '');
    expect(first.id).toBe(created.latest_revision_id);

    const patched = await client.patchDeployment(created.id, {
      source_revision_config: { image_uri: 'registry.example.test/agent:1.0.1' },
    });
    expect(patched.latest_revision_id).not.toBe(created.latest_revision_id);
    expect(patched.source_revision_config.image_uri).toBe('registry.example.test/agent:1.0.1');

    const revisions = await client.listRevisions(created.id);
    expect(revisions.resources.map((r) => r.id)).toEqual([
      patched.latest_revision_id,
      created.latest_revision_id,
    ]);

    await client.deleteDeployment(created.id, { deleteTracingProject: true });
    const [deleteRequest] = received('DELETE', '/v2/deployments/{deployment_id}');
    expect(deleteRequest?.query).toMatchObject({ delete_tracing_project: 'true' });
    // The platform deletes asynchronously: the deployment reads as deleting, then is gone.
    expect((await client.getDeployment(created.id)).status).toBe('AWAITING_DELETE');
    await vi.waitFor(() => expect(client.getDeployment(created.id)).rejects.toBeInstanceOf(NotFoundError), {
      timeout: 5_000,
    });
  });

  it('redeploys a revision: a new latest revision with the same configuration', async () => {
    const created = await client.createDeployment(imageDeployment());
    const first = created.latest_revision_id ?? '';
    const redeployed = await client.redeployRevision(created.id, first);
    expect(redeployed.latest_revision_id).not.toBe(first);
    const latest = await client.getRevision(created.id, redeployed.latest_revision_id ?? '');
    expect(latest.source_revision_config.image_uri).toBe('registry.example.test/agent:1.0.0');
    const [request] = received('POST', '/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy');
    expect(request?.path).toBe(`/v2/deployments/${created.id}/revisions/${first}/redeploy`);
  });

  it('a deployment status it does not know is kept as the string, and the listing still reads', async () => {
    const created = await client.createDeployment(imageDeployment());
    sim.setDeploymentStatus(created.id, 'MIGRATING');
    expect((await client.getDeployment(created.id)).status).toBe('MIGRATING');
    const listed = await client.listDeployments({ deploymentIds: [created.id] });
    expect(listed.resources.map((d) => d.status)).toStrictEqual(['MIGRATING']);
  });

  it('filters revisions by status, comma-separated', async () => {
    const created = await client.createDeployment(imageDeployment());
    const list = await client.listRevisions(created.id, { status: ['DEPLOYED', 'BUILDING'], limit: 5 });
    for (const r of list.resources) expect(['DEPLOYED', 'BUILDING']).toContain(r.status);
    const [request] = received('GET', '/v2/deployments/{deployment_id}/revisions');
    expect(request?.query).toMatchObject({ status: 'DEPLOYED,BUILDING', limit: '5' });
  });

  it('lists by ids, sent as repeated deployment_ids', async () => {
    const a = await client.createDeployment(imageDeployment());
    const b = await client.createDeployment(imageDeployment());
    await client.createDeployment(imageDeployment());
    const sent: Sent[] = [];
    const recorded = makeClient({ apiKey: API_KEY }, { dispatcher: recordingDispatcher(sent) });
    const list = await recorded.listDeployments({ deploymentIds: [a.id, b.id], limit: 100, status: 'READY' });
    expect(list.resources.every((d) => d.status === 'READY')).toBe(true);
    const all = await recorded.listDeployments({ deploymentIds: [a.id, b.id], limit: 100 });
    expect(all.resources.map((d) => d.id).sort()).toEqual([a.id, b.id].sort());
    expect(sent[1]?.path).toBe(`/v2/deployments?deployment_ids=${a.id}&deployment_ids=${b.id}&limit=100`);
    expect(sent[0]?.path).toContain('status=READY');
  });

  it('finds by exact name across pages among substring matches', async () => {
    const stem = uniqueName('find');
    const names = [`${stem}-x`, `x-${stem}`, stem, `${stem}-y`, `${stem}2`, `pre${stem}`, `${stem}-zz`];
    const ids = new Map<string, string>();
    for (const name of names) ids.set(name, (await client.createDeployment(imageDeployment(name))).id);
    sim.resetRequests();

    const found = await client.findDeploymentsByName(stem, { pageSize: 2 });
    expect(found.map((d) => d.id)).toEqual([ids.get(stem)]);
    // 7 matches in pages of 2: four pages, the last one short.
    expect(received('GET', '/v2/deployments')).toHaveLength(4);
  });

  it('finds nothing for a name that only occurs as a substring', async () => {
    const stem = uniqueName('none');
    await client.createDeployment(imageDeployment(`${stem}-a`));
    expect(await client.findDeploymentsByName(stem)).toEqual([]);
  });
});

describe('sandbox templates and listeners', () => {
  const templateNames = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];

  beforeAll(() => {
    sim.setTemplates(
      templateNames.map((name) => ({ name, image: `registry.example.test/${name}:1`, resources: {} })),
    );
  });

  it('lists one page with sort and filter', async () => {
    const page = await client.listSandboxTemplates({
      nameContains: 'ETA',
      sortBy: 'name',
      sortDirection: 'asc',
      limit: 10,
    });
    expect(page.templates.map((t) => t.name)).toEqual(['beta', 'eta', 'theta', 'zeta']);
    const [request] = received('GET', '/v2/sandboxes/templates');
    expect(request?.query).toMatchObject({ name_contains: 'ETA', sort_by: 'name', sort_direction: 'asc' });
  });

  it('follows offset across pages', async () => {
    const all = await client.listAllSandboxTemplates({ pageSize: 3 });
    expect(all.map((t) => t.name).sort()).toEqual([...templateNames].sort());
    // 8 templates in pages of 3: the third page is short.
    expect(received('GET', '/v2/sandboxes/templates')).toHaveLength(3);
  });

  it('stops when a full page is followed by an empty one', async () => {
    const all = await client.listAllSandboxTemplates({ pageSize: 4 });
    expect(all).toHaveLength(8);
    expect(received('GET', '/v2/sandboxes/templates')).toHaveLength(3);
  });

  it('stops when the offset stops advancing (a server repeating a page)', async () => {
    // Every request asks for the first page again, so the second answer repeats the first one's offset.
    const agent = new Agent();
    agents.push(agent);
    const rewinding = agent.compose(
      (dispatch) => (opts, handler) =>
        dispatch({ ...opts, path: opts.path.replace(/offset=\d+/, 'offset=0') }, handler),
    );
    const c = makeClient({ apiKey: API_KEY }, { dispatcher: rewinding });
    const all = await c.listAllSandboxTemplates({ pageSize: 3 });
    expect(all).toHaveLength(3);
    expect(received('GET', '/v2/sandboxes/templates')).toHaveLength(2);
  });

  it('refuses a limit outside 1..500 with a 422', async () => {
    const err = await rejection(client.listSandboxTemplates({ limit: 501 }));
    expect(err).toBeInstanceOf(ValidationFailedError);
    expect(err.message).toContain('query.limit');
  });

  it('reads templates whose optional fields are null as absent ones', async () => {
    sim.setPresentation({ nullOptionalFields: true });
    try {
      const templates = await client.listAllSandboxTemplates();
      expect(templates.length).toBeGreaterThan(0);
      for (const t of templates) for (const value of Object.values(t)) expect(value).not.toBeNull();
    } finally {
      sim.setPresentation({ nullOptionalFields: false });
    }
  });

  it('lists listeners', async () => {
    const listeners = await client.listListeners();
    expect(Array.isArray(listeners.resources)).toBe(true);
  });
});

describe('errors', () => {
  it('422 names the field and the reason', async () => {
    const err = await rejection(client.createDeployment(imageDeployment(uniqueName(), 20)));
    expect(err).toBeInstanceOf(ValidationFailedError);
    expect((err as ValidationFailedError).issues[0]?.loc).toEqual([
      'body',
      'source_config',
      'resource_spec',
      'cpu',
    ]);
    expect(err.message).toContain(
      'body.source_config.resource_spec.cpu: Input should be less than or equal to 8',
    );
    expect(err.status).toBe(422);
  });

  it('422 for a nested shape names the field, and a reconcile reports it as Stalled Rejected', async () => {
    const request = imageDeployment();
    request.source_config.resource_spec = {
      volumes: [{ name: 'scratch', emptyDir: {} }],
      sidecars: [{ name: 'shipper', image: 'x', volumeMounts: [{ name: 'cache', mountPath: '/c' }] }],
    };
    const err = await rejection(client.createDeployment(request));
    expect(err).toBeInstanceOf(ValidationFailedError);
    const field = 'body.source_config.resource_spec.sidecars.0.volumeMounts.0.name';
    expect(err.message).toContain(
      `${field}: Value error, volume mount name 'cache' must match a volume name`,
    );
    expect(outcomeOf(err, outcomeOfControlPlaneError)).toEqual({
      kind: 'stalled',
      reason: 'Rejected',
      message: err.message,
    });
  });

  it('400 for a change to an immutable field', async () => {
    const created = await client.createDeployment(repoDeployment());
    const err = await rejection(
      client.patchDeployment(created.id, { source_config: { repo_url: 'https://git.example.test/other' } }),
    );
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).detail).toContain('repo_url');
  });

  it('400 for a taken name', async () => {
    const request = repoDeployment();
    await client.createDeployment(request);
    const err = await rejection(client.createDeployment(request));
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.message).toContain(request.name);
  });

  it.each([
    ['getDeployment', () => client.getDeployment(randomUUID())],
    ['patchDeployment', () => client.patchDeployment(randomUUID(), { secrets: [] })],
    ['deleteDeployment', () => client.deleteDeployment(randomUUID())],
    ['getRevision', () => client.getRevision(randomUUID(), randomUUID())],
  ])('404 from %s', async (operation, call) => {
    const err = await rejection(call());
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.operation).toBe(operation);
    expect((err as NotFoundError).detail).toMatch(/not found/);
  });

  it.each([
    ['an unknown API key', { apiKey: 'wrong-api-key-1234' }],
    ['an unknown bearer token', { bearerToken: 'wrong-bearer-1234', tenantId: TENANT }],
    ['a bearer token of another tenant', { bearerToken: BEARER, tenantId: randomUUID() }],
  ])('403 for %s', async (_name, credentials) => {
    const err = await rejection(makeClient(credentials).listListeners());
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err.status).toBe(403);
    expect(err.retryable).toBe(false);
    expect(received('GET', '/v2/listeners')).toHaveLength(1);
  });

  it('401', async () => {
    sim.addFault({ route: '/v2/listeners', status: 401 });
    const err = await rejection(client.listListeners());
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err.status).toBe(401);
    expect(received('GET', '/v2/listeners')).toHaveLength(1);
  });

  it('429 with Retry-After: a GET is retried', async () => {
    const created = await client.createDeployment(imageDeployment());
    sim.resetRequests();
    sim.addFault({
      method: 'GET',
      route: '/v2/deployments/{deployment_id}',
      status: 429,
      times: 1,
      retryAfterSeconds: 0,
    });
    expect((await client.getDeployment(created.id)).id).toBe(created.id);
    expect(received('GET', '/v2/deployments/{deployment_id}')).toHaveLength(2);
  });

  it('429 asking for longer than the client waits: RateLimitedError at once, with the delay', async () => {
    sim.addFault({ method: 'GET', route: '/v2/listeners', status: 429, retryAfterSeconds: 30 });
    const err = await rejection(client.listListeners());
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterMs).toBe(30_000);
    expect(err.retryable).toBe(true);
    expect(received('GET', '/v2/listeners')).toHaveLength(1);
  });

  it.each([
    ['503', { status: 503 }, 503],
    ['a dropped connection', { dropConnection: true }, undefined],
  ])('%s: a GET is tried three times, then UnavailableError', async (_name, fault, status) => {
    sim.addFault({ method: 'GET', route: '/v2/listeners', ...fault });
    const err = await rejection(client.listListeners());
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err.status).toBe(status);
    expect(received('GET', '/v2/listeners')).toHaveLength(3);
  });

  it.each([
    ['503', { status: 503 }],
    ['a dropped connection', { dropConnection: true }],
  ])('%s once: the GET retry succeeds', async (_name, fault) => {
    sim.addFault({ method: 'GET', route: '/v2/listeners', times: 1, ...fault });
    await client.listListeners();
    expect(received('GET', '/v2/listeners')).toHaveLength(2);
  });

  it.each([
    ['503', { status: 503 }],
    ['429', { status: 429, retryAfterSeconds: 0 }],
    ['a dropped connection', { dropConnection: true }],
  ])('POST, PATCH and DELETE are never retried (%s)', async (_name, fault) => {
    const created = await client.createDeployment(imageDeployment());
    sim.resetRequests();
    sim.addFault({ method: 'POST', route: '/v2/deployments', ...fault });
    sim.addFault({ method: 'PATCH', route: '/v2/deployments/{deployment_id}', ...fault });
    sim.addFault({ method: 'DELETE', route: '/v2/deployments/{deployment_id}', ...fault });

    await rejection(client.createDeployment(imageDeployment()));
    await rejection(client.patchDeployment(created.id, { secrets: [{ name: 'A', value: 'b' }] }));
    await rejection(client.deleteDeployment(created.id));

    expect(received('POST', '/v2/deployments')).toHaveLength(1);
    expect(received('PATCH', '/v2/deployments/{deployment_id}')).toHaveLength(1);
    expect(received('DELETE', '/v2/deployments/{deployment_id}')).toHaveLength(1);
  });

  it.each([
    ['not-json', []],
    ['missing-fields', ['id', 'name', 'status']],
    ['wrong-types', ['id', 'created_at']],
  ] as const)('a %s body is MalformedResponseError naming the fields, not retried', async (kind, paths) => {
    const created = await client.createDeployment(imageDeployment());
    sim.resetRequests();
    sim.addFault({ method: 'GET', route: '/v2/deployments/{deployment_id}', malformed: kind });
    const err = await rejection(client.getDeployment(created.id));
    expect(err).toBeInstanceOf(MalformedResponseError);
    for (const path of paths) expect(err.message).toContain(`${path} (`);
    expect(err.message).not.toContain(created.name);
    expect(err.message).not.toContain('<html>');
    expect(received('GET', '/v2/deployments/{deployment_id}')).toHaveLength(1);
  });

  it('a response slower than the headers timeout is UnavailableError', async () => {
    const slow = makeClient({ apiKey: API_KEY }, { getRetries: 0, timeouts: { headersMs: 50 } });
    sim.addFault({ method: 'GET', route: '/v2/listeners', latencyMs: 1_000 });
    const err = await rejection(slow.listListeners());
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err.message).toContain('timed out');
  });

  it('a refused connection is UnavailableError', async () => {
    const closed = await startSimulator();
    await closed.close();
    const c = makeClient({ baseUrl: closed.url, apiKey: API_KEY }, { getRetries: 0 });
    const err = await rejection(c.listListeners());
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err.status).toBeUndefined();
  });
});

describe('authentication', () => {
  it.each<[string, Partial<Credentials>, Record<string, string>]>([
    ['API key', { apiKey: API_KEY }, { 'x-api-key': API_KEY }],
    [
      'API key with tenant id',
      { apiKey: API_KEY, tenantId: TENANT },
      { 'x-api-key': API_KEY, 'x-tenant-id': TENANT },
    ],
    [
      'bearer token with tenant id',
      { bearerToken: BEARER, tenantId: TENANT },
      { authorization: `Bearer ${BEARER}`, 'x-tenant-id': TENANT },
    ],
  ])('%s', async (_name, credentials, headers) => {
    const sent: Sent[] = [];
    const c = makeClient(credentials, { dispatcher: recordingDispatcher(sent) });
    expect((await c.listListeners()).resources.length).toBeGreaterThan(0);
    expect(sent[0]?.headers).toMatchObject(headers);
  });

  it('bearer token without tenant id is refused before any request', () => {
    expect(() => makeClient({ bearerToken: BEARER })).toThrow(CredentialsConfigError);
    expect(() => makeClient({ bearerToken: BEARER })).toThrow(/tenant/);
    expect(sim.requests()).toHaveLength(0);
  });
});

describe('no credential or secret in any error message', () => {
  const failures: Array<[string, () => Promise<unknown>]> = [
    ['401', () => makeClient({ apiKey: 'wrong-api-key-secret-9999' }).listListeners()],
    [
      'bearer of another tenant',
      () => makeClient({ bearerToken: BEARER, tenantId: randomUUID() }).listListeners(),
    ],
    ['404', () => client.getDeployment(randomUUID())],
    ['422 on create with a secret', () => client.createDeployment(imageDeployment(uniqueName(), 99))],
    [
      '400 with a secret',
      async () => {
        const request = imageDeployment();
        await client.createDeployment(request);
        return client.createDeployment(request);
      },
    ],
    [
      '503',
      () => {
        sim.addFault({ route: '/v2/listeners', status: 503 });
        return client.listListeners();
      },
    ],
    [
      'dropped connection',
      () => {
        sim.addFault({ route: '/v2/listeners', dropConnection: true });
        return client.listListeners();
      },
    ],
    [
      'malformed',
      () => {
        sim.addFault({ route: '/v2/listeners', malformed: 'wrong-types' });
        return client.listListeners();
      },
    ],
    ['bad credentials config', async () => makeClient({ bearerToken: 'bearer-secret-config-7777' })],
  ];
  const values = [API_KEY, BEARER, SECRET_VALUE, 'wrong-api-key-secret-9999', 'bearer-secret-config-7777'];

  it.each(failures)('%s', async (_name, fail) => {
    const err = await fail().then(
      () => expect.fail('expected a failure'),
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(ControlPlaneError);
    const text = `${err.message}\n${err.stack ?? ''}\n${JSON.stringify(err)}`;
    for (const value of values) expect(text).not.toContain(value);
  });
});

describe('onRequest', () => {
  it('reports each attempt with the route template', async () => {
    const events: RequestEvent[] = [];
    const c = makeClient({ apiKey: API_KEY }, { onRequest: (e) => events.push(e) });
    sim.addFault({ method: 'GET', route: '/v2/deployments/{deployment_id}', status: 503, times: 1 });
    await rejection(c.getDeployment(randomUUID()));
    expect(
      events.map(({ operation, method, route, status }) => ({ operation, method, route, status })),
    ).toEqual([
      { operation: 'getDeployment', method: 'GET', route: '/v2/deployments/{deployment_id}', status: 503 },
      { operation: 'getDeployment', method: 'GET', route: '/v2/deployments/{deployment_id}', status: 404 },
    ]);
    for (const e of events) expect(e.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a transport failure as error', async () => {
    const events: RequestEvent[] = [];
    const c = makeClient({ apiKey: API_KEY }, { getRetries: 0, onRequest: (e) => events.push(e) });
    sim.addFault({ route: '/v2/listeners', dropConnection: true });
    await rejection(c.listListeners());
    expect(events.map((e) => e.status)).toEqual(['error']);
  });
});
