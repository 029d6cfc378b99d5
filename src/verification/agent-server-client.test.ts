/** The agent-server client: error bodies summarised, and servers that misbehave (every call ends, and soon). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HostileMode,
  type HostileServer,
  startFixedServer,
  startHostileServer,
} from '../../test/support/hostile-server.ts';
import { AgentServerClient, AgentServerError } from './agent-server-client.ts';

describe('AgentServerClient error answers', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: string; type: string };
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const junk = `<html>${'\u001b[2J'}internal admin token=abc123\u0000${'A'.repeat(5000)}</html>`;
  it.each<[string, number, string, string, string]>([
    [
      'a JSON detail is quoted',
      500,
      'application/json',
      '{"detail":"graph missing"}',
      'GET /ok answered 500: graph missing',
    ],
    [
      'a JSON message is quoted',
      503,
      'application/json',
      '{"message":"warming up"}',
      'GET /ok answered 503: warming up',
    ],
    [
      'a JSON detail with junk is sanitised and cut',
      500,
      'application/json',
      JSON.stringify({ detail: `bad\u0000\n${'z'.repeat(400)}` }),
      `GET /ok answered 500: bad ${'z'.repeat(155)}…`,
    ],
    [
      'an HTML body is not quoted',
      502,
      'text/html',
      junk,
      `GET /ok answered 502 (a ${Buffer.byteLength(junk)}-byte body, not quoted)`,
    ],
    [
      'a JSON body without a detail string is not quoted',
      500,
      'application/json',
      '{"detail":{"secret":"x"}}',
      'GET /ok answered 500 (a 25-byte body, not quoted)',
    ],
    ['an empty body', 500, 'text/plain', '', 'GET /ok answered 500'],
    [
      'the key is redacted from a detail',
      401,
      'application/json',
      '{"detail":"bad key key-secret-9"}',
      'GET /ok answered 401: bad key [redacted]',
    ],
  ])('%s', async (_case, status, type, body, message) => {
    answer = { status, type, body };
    const client = new AgentServerClient({ url, credentials: { apiKey: 'key-secret-9' } });
    const err = await client.ok().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AgentServerError);
    expect((err as Error).message).toBe(message);
  });
});

const servers = {} as Record<HostileMode, HostileServer>;
beforeAll(async () => {
  for (const mode of ['trickle', 'huge', 'hang'] as const) servers[mode] = await startHostileServer(mode);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

const clientOf = (mode: HostileMode, signal?: AbortSignal) =>
  new AgentServerClient({
    url: servers[mode].url,
    credentials: { apiKey: 'hostile-test-key' },
    timeoutMs: 500,
    maxBodyBytes: 1024 * 1024,
    signal,
  });

describe('the agent-server client against a hostile server', () => {
  it.each<[string, HostileMode, string]>([
    ['a trickling body ends at the total deadline', 'trickle', 'no complete answer within 0.5s'],
    ['a 100 MB body is abandoned past the cap', 'huge', 'larger than 1048576 bytes'],
  ])('%s', async (_, mode, message) => {
    const err = await clientOf(mode)
      .ok()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentServerError);
    expect((err as Error).message).toContain(message);
  });

  it("the client's signal (shutdown) cancels a call in flight", async () => {
    const stop = new AbortController();
    const call = clientOf('hang', stop.signal)
      .createThread({})
      .catch((e: unknown) => e);
    setTimeout(() => stop.abort(), 50);
    expect(((await call) as Error).message).toContain('cancelled');
  });
});

describe('ids that go into status', () => {
  it('a run id longer than status allows is refused at the boundary', async () => {
    const server = await startFixedServer(200, {
      run_id: 'r'.repeat(65),
      thread_id: 't-1',
      status: 'pending',
    });
    try {
      const client = new AgentServerClient({
        url: server.url,
        credentials: { apiKey: 'test-key' },
      });
      const err = await client
        .createRun('t-1', { assistant_id: 'a', input: {}, metadata: {} })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AgentServerError);
      expect((err as Error).message).toContain('run_id');
    } finally {
      await server.close();
    }
  });
});
