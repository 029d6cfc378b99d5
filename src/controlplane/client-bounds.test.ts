/**
 * What a control plane that misbehaves on purpose can make one call cost, and what it can make the
 * client believe: scripted servers over real HTTP on loopback.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from './client.ts';
import { BudgetExceededError, MalformedResponseError, ResponseTooLargeError } from './errors.ts';

const deployment = (id: string, name = `dep-${id}`) => ({
  id,
  name,
  source: 'external_image',
  source_config: {},
  source_revision_config: {},
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'rev-1',
  active_revision_id: 'rev-1',
  secrets: [],
});
const revision = (id: string) => ({
  id,
  status: 'DEPLOYED',
  source_revision_config: {},
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A server answering every request with `answer`; returns a client on it and the requests it saw. */
async function scripted(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
  options: { walkMaxPages?: number; walkMaxBytes?: number; maxBodyBytes?: number } = {},
) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  const client = new ControlPlaneClient({
    credentials: { baseUrl: `http://127.0.0.1:${port}`, apiKey: 'scripted-key' },
    getRetries: 0,
    ...options,
  });
  closers.push(async () => {
    await client.close();
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });
  return { client, seen };
}

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('an answer about something else is a protocol error, never a result', () => {
  it.each<[string, (c: ControlPlaneClient) => Promise<unknown>, unknown]>([
    ['getDeployment', (c) => c.getDeployment('mine'), deployment('victim')],
    ['patchDeployment', (c) => c.patchDeployment('mine', { source_config: {} }), deployment('victim')],
    ['redeployRevision', (c) => c.redeployRevision('mine', 'rev-1'), deployment('victim')],
    ['getRevision', (c) => c.getRevision('mine', 'rev-1'), revision('rev-other')],
    [
      'listDeployments by ids',
      (c) => c.listDeployments({ deploymentIds: ['mine'] }),
      { resources: [deployment('mine'), deployment('victim')], offset: 2 },
    ],
    [
      'createDeployment',
      (c) =>
        c.createDeployment({
          name: 'mine',
          source: 'external_image',
          source_config: {},
          source_revision_config: { image_uri: 'registry.example.com/a:1' },
          secrets: [],
        }),
      deployment('victim', 'victims-name'),
    ],
  ])('%s', async (_, call, body) => {
    const { client } = await scripted((_req, res) => json(res, body));
    const err = await call(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(String((err as Error).message)).toMatch(/victim|rev-other/);
  });
});

describe('a listing that never ends is abandoned within its budget', () => {
  it('by pages: a full page and a next offset every time', async () => {
    const { client, seen } = await scripted(
      (req, res) => {
        const offset = Number(new URL(req.url ?? '', 'http://x').searchParams.get('offset') ?? 0);
        const resources = Array.from({ length: 100 }, (_, i) =>
          deployment(`d${offset + i}`, `app-${offset + i}`),
        );
        json(res, { resources, offset: offset + 100 });
      },
      { walkMaxPages: 5 },
    );
    const err = await client.findDeploymentsByName('app').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect((err as Error).message).toMatch(/did not end within 5 pages/);
    expect(seen).toHaveLength(5);
  });

  it('by bytes: large pages stop at the walk budget, mid-body', async () => {
    const padding = 'x'.repeat(200_000);
    const { client, seen } = await scripted(
      (req, res) => {
        const offset = Number(new URL(req.url ?? '', 'http://x').searchParams.get('offset') ?? 0);
        const resources = Array.from({ length: 100 }, (_, i) => ({
          ...deployment(`d${offset + i}`, `app-${offset + i}`),
          ...(i === 0 ? { padding } : {}),
        }));
        json(res, { resources, offset: offset + 100 });
      },
      { walkMaxBytes: 1_000_000 },
    );
    const err = await client.findDeploymentsByName('app').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect((err as Error).message).toMatch(/passed 1000000 bytes/);
    expect(seen.length).toBeLessThanOrEqual(5);
  });

  it('a lookup steps over a deployment too big to read, halving its pages, and finds the name past it', async () => {
    const all = Array.from({ length: 250 }, (_, i) => deployment(`d${i}`, i === 200 ? 'app' : `app-${i}`));
    const { client, seen } = await scripted(
      (req, res) => {
        const query = new URL(req.url ?? '', 'http://x').searchParams;
        const offset = Number(query.get('offset') ?? 0);
        const limit = Number(query.get('limit') ?? 100);
        const resources = all
          .slice(offset, offset + limit)
          .map((d) => (d.id === 'd120' ? { ...d, labels: { padding: 'x'.repeat(1_500_000) } } : d));
        json(res, { resources, offset: offset + resources.length });
      },
      { maxBodyBytes: 1_000_000 },
    );
    expect((await client.findDeploymentsByName('app')).map((d) => d.id)).toEqual(['d200']);
    expect(seen.length).toBeLessThan(40);
    // A listing that must return everything does not step over it: it says which bound was passed.
    const err = await client.listAllDeployments({ nameContains: 'app' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as Error).message).toMatch(/larger than 1000000 bytes/);
  });

  it('a lookup stepping over answers too big to read still ends within the walk budget', async () => {
    const { client, seen } = await scripted(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"resources":[],"offset":0,"padding":"${'x'.repeat(300_000)}"}`);
      },
      { maxBodyBytes: 100_000, walkMaxBytes: 1_000_000 },
    );
    const err = await client.findDeploymentsByName('app').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect((err as Error).message).toMatch(/passed 1000000 bytes/);
    expect(seen.length).toBeLessThanOrEqual(11);
  });

  it('keeps only the exact matches while it walks', async () => {
    const { client } = await scripted((req, res) => {
      const offset = Number(new URL(req.url ?? '', 'http://x').searchParams.get('offset') ?? 0);
      const resources =
        offset >= 300
          ? [deployment('last', 'app')]
          : Array.from({ length: 100 }, (_, i) => deployment(`d${offset + i}`, `app-${offset + i}`));
      json(res, { resources, offset: offset + resources.length });
    });
    expect((await client.findDeploymentsByName('app')).map((d) => d.id)).toEqual(['last']);
  });
});
