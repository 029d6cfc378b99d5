/** The agent-server client against servers that misbehave: every call ends, and soon. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HostileMode,
  type HostileServer,
  startFixedServer,
  startHostileServer,
} from '../lib/hostile-server.ts';
import { AgentServerClient, AgentServerError } from './agent-server-client.ts';

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
    credentials: { baseUrl: servers[mode].url, apiKey: 'hostile-test-key' },
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
        credentials: { baseUrl: server.url, apiKey: 'test-key' },
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
