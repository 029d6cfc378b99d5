import { getEventListeners } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRule } from '../simulator/faults.ts';
import { startSimulator } from '../simulator/index.ts';
import type { ControlPlaneClient } from './client.ts';
import { credentialsKey } from './credentials.ts';
import { CancelledError, CredentialsConfigError, IdentityLimitError, UnauthorizedError } from './errors.ts';
import { ControlPlanePools } from './pools.ts';

type Sim = Awaited<ReturnType<typeof startSimulator>>;
let sim: Sim;

beforeAll(async () => {
  sim = await startSimulator({ apiKeys: ['sim-api-key', 'second-api-key'] });
});

afterAll(async () => {
  await sim.close();
});

describe('ControlPlanePools', () => {
  it('serves clients of different credentials on one origin, each with its own headers', async () => {
    const pools = new ControlPlanePools({ connections: 2 });
    const first = pools.clientFor({ baseUrl: sim.url, apiKey: 'sim-api-key' });
    const second = pools.clientFor({ baseUrl: `${sim.url}/`, apiKey: 'second-api-key' });
    const stranger = pools.clientFor({ baseUrl: sim.url, apiKey: 'unknown-api-key' });
    await Promise.all([first.listListeners(), second.listListeners(), first.listListeners()]);
    await expect(stranger.listListeners()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(sim.requests({ route: '/v2/listeners' })).toHaveLength(4);
    // A client does not close the shared pool.
    await first.close();
    await second.listListeners();
    await pools.close();
  });

  it('refuses bad credentials and anything after close', async () => {
    const pools = new ControlPlanePools();
    expect(() => pools.clientFor({ baseUrl: sim.url, bearerToken: 'tok-1234' })).toThrow(
      CredentialsConfigError,
    );
    const client = pools.clientFor({ baseUrl: sim.url, apiKey: 'sim-api-key' }, { getRetries: 0 });
    await pools.close();
    // close() cancels: nothing is sent any more.
    await expect(client.listListeners()).rejects.toBeInstanceOf(CancelledError);
    expect(() => pools.clientFor({ baseUrl: sim.url, apiKey: 'sim-api-key' })).toThrow(/closed/);
  });

  it("close() cancels a call in flight of a pass's client; a call that ended leaves no listener on the pass's signal", async () => {
    const held: ServerResponse[] = [];
    const server = createServer((_req, res) => held.push(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const pools = new ControlPlanePools();
      const pass = new AbortController();
      const done = pools.clientFor({ baseUrl: sim.url, apiKey: 'sim-api-key' }, { signal: pass.signal });
      await done.listListeners();
      expect(getEventListeners(pass.signal, 'abort')).toHaveLength(0);
      const client = pools.clientFor(
        { baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sim-api-key' },
        { signal: pass.signal, getRetries: 0 },
      );
      const failure = client.listListeners().then(
        () => undefined,
        (err: unknown) => err,
      );
      await expect.poll(() => held.length).toBe(1);
      await pools.close();
      expect(await failure).toBeInstanceOf(CancelledError);
      expect(pass.signal.aborted).toBe(false);
      expect(getEventListeners(pass.signal, 'abort')).toHaveLength(0);
    } finally {
      for (const res of held) res.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('ControlPlanePools pruning', () => {
  it('drops the limiters and pools of tenants not seen for idleMs', async () => {
    let now = 0;
    const pools = new ControlPlanePools({ idleMs: 60_000, now: () => now });
    const gone = { baseUrl: 'http://127.0.0.1:9', apiKey: 'tenant-gone' };
    const other = { baseUrl: 'http://127.0.0.2:9', apiKey: 'tenant-other' };
    pools.clientFor(gone);
    pools.clientFor(other);
    expect(pools.size).toEqual({ pools: 2, limiters: 2 });
    now = 30_000;
    pools.clientFor({ baseUrl: sim.url, apiKey: 'sim-api-key' });
    expect(pools.size).toEqual({ pools: 3, limiters: 3 });
    now = 90_000;
    pools.clientFor({ baseUrl: sim.url, apiKey: 'sim-api-key' });
    expect(pools.size).toEqual({ pools: 1, limiters: 1 });
    await pools.close();
  });
});

describe('ControlPlanePools identities per namespace (issue 32)', () => {
  const key = (i: number) => ({ baseUrl: 'http://127.0.0.1:9', apiKey: `attacker-key-${i}` });

  it('a namespace gets at most namespaceIdentities of its own; the next is refused, naming the setting', async () => {
    let now = 0;
    const pools = new ControlPlanePools({
      namespaceIdentities: 2,
      namespaceIdentityIdleMs: 60_000,
      now: () => now,
    });
    pools.clientFor(key(1), { namespace: 'attacker' });
    pools.clientFor(key(2), { namespace: 'attacker' });
    // Those it uses keep working; another namespace and the controller's own credentials are not counted.
    pools.clientFor(key(1), { namespace: 'attacker' });
    pools.clientFor(key(3), { namespace: 'team' });
    pools.clientFor(key(4));
    expect(() => pools.clientFor(key(3), { namespace: 'attacker' })).toThrow(IdentityLimitError);
    expect(() => pools.clientFor(key(3), { namespace: 'attacker' })).toThrow(
      /namespace attacker already uses 2 credential identities.*--namespace-credential-identities/,
    );
    expect(pools.size.limiters).toBe(4);
    // One left unused past the idle time gives its place up.
    now = 50_000;
    pools.clientFor(key(1), { namespace: 'attacker' });
    now = 70_000;
    pools.clientFor(key(3), { namespace: 'attacker' });
    expect(() => pools.clientFor(key(2), { namespace: 'attacker' })).toThrow(IdentityLimitError);
    await pools.close();
  });

  it('an identity the batched poll still lists for the namespace keeps its place, unused however long', async () => {
    let now = 0;
    const polled = new Set([`team/${credentialsKey(key(1))}`]);
    const pools = new ControlPlanePools({
      namespaceIdentities: 1,
      namespaceIdentityIdleMs: 60_000,
      inUse: (namespace, identity) => polled.has(`${namespace}/${identity}`),
      now: () => now,
    });
    pools.clientFor(key(1), { namespace: 'team' });
    // Hours later (a Ready object's resync among many), the poll still lists its deployment.
    now = 3 * 3_600_000;
    expect(() => pools.clientFor(key(2), { namespace: 'team' })).toThrow(IdentityLimitError);
    // The object went: its identity gives its place up.
    polled.clear();
    pools.clientFor(key(2), { namespace: 'team' });
    await pools.close();
  });

  it.each([
    ['a fragment', (i: number) => `http://127.0.0.1:9/#${i}`],
    ['a trailing slash', (i: number) => `http://127.0.0.1:9${'/'.repeat(i)}`],
  ])('spellings of one URL with one key are one identity (%s)', async (_name, url) => {
    const pools = new ControlPlanePools({ namespaceIdentities: 1 });
    const mint = (i: number) =>
      pools.clientFor({ baseUrl: url(i), apiKey: 'one-key' }, { namespace: 'attacker' });
    if (url(1).includes('#')) {
      expect(() => mint(1)).toThrow(CredentialsConfigError);
    } else {
      for (const i of [1, 2, 3]) mint(i);
      expect(pools.size.limiters).toBe(1);
    }
    await pools.close();
  });
});

describe('hole 7: what one namespace sent never opens the circuit breaker every namespace shares', () => {
  const credentials = () => ({ baseUrl: sim.url, apiKey: 'sim-api-key' });
  /** Pools whose breaker opens after 3 failures. */
  const poolsForBreaker = () =>
    new ControlPlanePools({
      breaker: { threshold: 3, baseOpenMs: 60_000 },
      clientDefaults: { getRetries: 0 },
    });
  const request = (name: string) => ({
    name,
    source: 'external_image' as const,
    source_config: { resource_spec: { cpu: 1, memory_mb: 512 } },
    source_revision_config: { image_uri: 'registry.example.test/agent:1.0.0' },
    secrets: [],
  });
  let made = 0;
  const fresh = () => `hole-7-${++made}`;
  type Target = { id: string; revision: string };
  const DEPLOYMENT = '/v2/deployments/{deployment_id}';

  type Send = (c: ControlPlaneClient, t: Target, pools: ControlPlanePools) => Promise<unknown>;
  it.each<[string, FaultRule, Send]>([
    [
      'a create answered 500',
      { method: 'POST', route: '/v2/deployments', status: 500 },
      (c) => c.createDeployment(request(fresh())),
    ],
    [
      'a create that gets no answer in time',
      { method: 'POST', route: '/v2/deployments', latencyMs: 2_000 },
      // A client of the same identity that gives up after 300 ms.
      (_c, _t, pools) =>
        pools.clientFor(credentials(), { timeouts: { totalMs: 300 } }).createDeployment(request(fresh())),
    ],
    [
      'a patch answered 502',
      { method: 'PATCH', route: DEPLOYMENT, status: 502 },
      (c, t) => c.patchDeployment(t.id, { secrets: [{ name: 'A', value: 'b' }] }),
    ],
    [
      'a delete answered 500',
      { method: 'DELETE', route: DEPLOYMENT, status: 500 },
      (c, t) => c.deleteDeployment(t.id),
    ],
    [
      'a redeploy answered 500',
      { method: 'POST', route: `${DEPLOYMENT}/revisions/{revision_id}/redeploy`, status: 500 },
      (c, t) => c.redeployRevision(t.id, t.revision),
    ],
    [
      "a lookup of a namespace's deployment name answered 500",
      { method: 'GET', route: '/v2/deployments', status: 500 },
      (c) => c.findDeploymentsByName('a-name-a-namespace-chose'),
    ],
    [
      "a GET of an adopt annotation's id answered 500",
      { method: 'GET', route: DEPLOYMENT, status: 500 },
      (c) => c.getDeployment('an-id-a-namespace-chose', { namespaceChosen: true }),
    ],
  ])('%s, three times: the credential is not parked', async (_case, fault, send) => {
    const pools = poolsForBreaker();
    const client = pools.clientFor(credentials());
    const made = await client.createDeployment(request(fresh()));
    const target = { id: made.id, revision: made.latest_revision_id ?? '' };
    const remove = sim.addFault(fault);
    try {
      for (let i = 0; i < 3; i++) await expect(send(client, target, pools)).rejects.toThrow();
    } finally {
      remove();
    }
    expect(pools.parked(credentials())).toBe(false);
    // Another namespace's object of the same identity goes on.
    await expect(client.getDeployment(made.id)).resolves.toMatchObject({ id: made.id });
    await pools.close();
  });

  it("the controller's own reads answered 500: the server's failure, the credential is parked", async () => {
    const pools = poolsForBreaker();
    const client = pools.clientFor(credentials());
    const made = await client.createDeployment(request(fresh()));
    const remove = sim.addFault({ method: 'GET', route: DEPLOYMENT, status: 500 });
    try {
      for (let i = 0; i < 3; i++) await expect(client.getDeployment(made.id)).rejects.toThrow();
    } finally {
      remove();
    }
    expect(pools.parked(credentials())).toBe(true);
    await pools.close();
  });

  it("a namespace's own credentials: what it sends parks only them, as before", async () => {
    const pools = poolsForBreaker();
    const own = { baseUrl: sim.url, apiKey: 'second-api-key' };
    const client = pools.clientFor(own, { namespace: 'team-a' });
    const remove = sim.addFault({ method: 'POST', route: '/v2/deployments', status: 500 });
    try {
      for (let i = 0; i < 3; i++) await expect(client.createDeployment(request(fresh()))).rejects.toThrow();
    } finally {
      remove();
    }
    expect(pools.parked(own)).toBe(true);
    expect(pools.parked(credentials())).toBe(false);
    await pools.close();
  });

  it("a namespace's create that finds no server (connection refused): nothing was sent, it counts", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const pools = poolsForBreaker();
    const gone = { baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sim-api-key' };
    const client = pools.clientFor(gone);
    for (let i = 0; i < 3; i++) await expect(client.createDeployment(request(fresh()))).rejects.toThrow();
    expect(pools.parked(gone)).toBe(true);
    await pools.close();
  });
});
