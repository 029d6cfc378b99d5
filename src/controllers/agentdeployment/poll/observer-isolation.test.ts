/**
 * The batched poll between identities (issue 32): one identity's server cannot delay another's poll
 * (each listed on its own, in parallel, under its own deadline), and a page whose answer is over its size
 * bound is split down to the one deployment that is, which alone is told (scripted servers over HTTP).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHostileServer } from '../../../../test/support/hostile-server.ts';
import { type Credentials, credentialsKey } from '../../../controlplane/credentials.ts';
import { ControlPlanePools } from '../../../controlplane/pools.ts';
import { DEFAULT_API_KEY, type Simulator, startSimulator } from '../../../simulator/index.ts';
import { createDeployment, deploymentAnswer, externalImageCreate } from '../../../simulator/test-support.ts';
import { DeploymentObserver } from './observer.ts';

let sim: Simulator;
let pools: ControlPlanePools;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  sim = await startSimulator({ revisionStepMs: 3_600_000 });
  // The client's defaults of a real install: 30 s per call, GETs tried three times.
  pools = new ControlPlanePools({ clientDefaults: { maxBodyBytes: 40_000 } });
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  await pools.close();
  await sim.close();
});

function observerOf(options: { listingDeadlineMs?: number } = {}) {
  const changed: string[] = [];
  const observer = new DeploymentObserver({
    pollIntervalMs: 60_000,
    ...options,
    clientFor: (c, signal) => pools.clientFor(c, { signal }),
    onChange: (key) => changed.push(key),
    logger: pino({ level: 'silent' }),
  });
  closers.push(async () => observer.stop());
  return { observer, changed };
}

/** A server listing the ids asked for; `padding` gives the bytes of each deployment's extra field. */
async function listingServer(padding: (id: string) => number) {
  const seen: string[][] = [];
  const server = createServer((req, res: ServerResponse) => {
    req.resume();
    const ids = new URL(req.url ?? '/', 'http://x').searchParams.getAll('deployment_ids');
    seen.push(ids);
    const resources = ids.map((id) => deploymentAnswer(id, { labels: { padding: 'x'.repeat(padding(id)) } }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resources, offset: 0 }));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('identities are polled on their own', () => {
  it("a server hanging its listing does not hold up another identity's poll", async () => {
    const hang = await startHostileServer('hang');
    closers.push(() => hang.close());
    const { observer } = observerOf();
    // The hanging identity first: a poll walking identities one after another would wait for it.
    observer.track('attacker/app', { baseUrl: hang.url, apiKey: 'attacker-key' }, 'd-hang');
    const healthy: Credentials = { baseUrl: sim.url, apiKey: DEFAULT_API_KEY };
    const { id } = await createDeployment(sim, externalImageCreate('healthy'));
    observer.track('team/healthy', healthy, id);
    void observer.pollOnce();
    await vi.waitFor(() => expect(observer.fresh(credentialsKey(healthy), id)?.id).toBe(id), {
      timeout: 10_000,
    });
  });

  it('a listing past its deadline is abandoned: its objects find out first-hand, and the poll ends', async () => {
    const hang = await startHostileServer('hang');
    closers.push(() => hang.close());
    const { observer, changed } = observerOf({ listingDeadlineMs: 300 });
    observer.track('attacker/app', { baseUrl: hang.url, apiKey: 'attacker-key' }, 'd-hang');
    await observer.pollOnce();
    expect(changed).toEqual(['attacker/app']);
  });
});

describe('a page over its size bound', () => {
  it('is split down to the one deployment over the bound, which alone is told, once', async () => {
    const server = await listingServer((id) => (id === 'd-7' ? 50_000 : 2_000));
    const { observer, changed } = observerOf();
    const credentials: Credentials = { baseUrl: server.url, apiKey: 'team-key' };
    const ids = Array.from({ length: 12 }, (_, i) => `d-${i}`);
    for (const id of ids) observer.track(`team/obj-${id}`, credentials, id);
    await observer.pollOnce();
    expect(changed).toEqual(['team/obj-d-7']);
    const identity = credentialsKey(credentials);
    for (const id of ids) expect(observer.fresh(identity, id)?.id).toBe(id === 'd-7' ? undefined : id);
    // From then on: the others in one page, the one over the bound alone, and nobody told again.
    server.seen.length = 0;
    await observer.pollOnce();
    expect(server.seen.map((page) => page.length).sort()).toEqual([1, 11]);
    expect(changed).toEqual(['team/obj-d-7']);
  });

  it('two deployments that overflow only together are each listed, and nobody is told', async () => {
    const server = await listingServer(() => 25_000);
    const { observer, changed } = observerOf();
    const credentials: Credentials = { baseUrl: server.url, apiKey: 'team-key' };
    observer.track('team/a', credentials, 'd-a');
    observer.track('team/b', credentials, 'd-b');
    await observer.pollOnce();
    expect(changed).toEqual([]);
    expect(observer.fresh(credentialsKey(credentials), 'd-a')?.id).toBe('d-a');
    expect(observer.fresh(credentialsKey(credentials), 'd-b')?.id).toBe('d-b');
  });
});
