/** The control-plane client against servers that misbehave: every call ends, and soon. */

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type HostileMode,
  type HostileServer,
  startFixedServer,
  startHostileServer,
} from '../../test/support/hostile-server.ts';
import { deploymentAnswer } from '../simulator/test-support.ts';
import { CircuitBreaker } from './circuit-breaker.ts';
import { ControlPlaneClient } from './client.ts';
import {
  CancelledError,
  CircuitOpenError,
  CredentialBusyError,
  MalformedResponseError,
  RateLimitedError,
  ResponseTooLargeError,
  UnavailableError,
} from './errors.ts';
import { RequestLimiter } from './limiter.ts';

const servers = {} as Record<HostileMode, HostileServer>;
beforeAll(async () => {
  for (const mode of ['trickle', 'huge', 'retry-after', 'hang'] as const) {
    servers[mode] = await startHostileServer(mode);
  }
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

const clientOf = (
  mode: HostileMode,
  options: Partial<ConstructorParameters<typeof ControlPlaneClient>[0]> = {},
) =>
  new ControlPlaneClient({
    credentials: { baseUrl: servers[mode].url, apiKey: 'hostile-test-key' },
    getRetries: 0,
    timeouts: { totalMs: 500 },
    maxBodyBytes: 1024 * 1024,
    ...options,
  });

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (err: unknown) => err as Error,
  );

describe('the control-plane client against a hostile server', () => {
  it.each<[string, HostileMode, string, new (...args: never[]) => Error]>([
    [
      'a trickling body ends at the total deadline',
      'trickle',
      'no complete answer within 0.5s',
      UnavailableError,
    ],
    [
      'a server that never answers ends at the total deadline',
      'hang',
      'no complete answer within 0.5s',
      UnavailableError,
    ],
    // The call's budget, not the server's health (issue 32): the circuit breaker does not count it.
    ['a 100 MB body is abandoned past the cap', 'huge', 'larger than 1048576 bytes', ResponseTooLargeError],
  ])('%s', async (_, mode, message, type) => {
    const err = await failure(clientOf(mode).listListeners());
    expect(err).toBeInstanceOf(type);
    expect(err.message).toContain(message);
  });

  it('over-size answers never open the circuit, and each is one request (not retried)', async () => {
    const breaker = new CircuitBreaker({ threshold: 3, probe: async () => {} });
    const client = clientOf('huge', { breaker, getRetries: 2 });
    const before = servers.huge.requests();
    for (let i = 0; i < 4; i++)
      expect(await failure(client.listListeners())).toBeInstanceOf(ResponseTooLargeError);
    expect(breaker.open).toBe(false);
    expect(servers.huge.requests() - before).toBe(4);
    breaker.close();
  });

  it('an open circuit fails the call at once: no retry, no sleep inside the call', async () => {
    const breaker = new CircuitBreaker({ threshold: 1, baseOpenMs: 60_000, probe: async () => {} });
    breaker.record(new UnavailableError('x', 'down'));
    const admit = vi.spyOn(breaker, 'admit');
    const client = clientOf('hang', { breaker, getRetries: 2, retryDelay: { baseMs: 1, maxMs: 60_000 } });
    expect(await failure(client.listListeners())).toBeInstanceOf(CircuitOpenError);
    expect(admit).toHaveBeenCalledTimes(1);
    breaker.close();
  });

  it('Retry-After: 86400 pauses the credential; the next call is not sent and says when to come back', async () => {
    const limiter = new RequestLimiter({ rps: 100, concurrency: 4 });
    const client = clientOf('retry-after', { limiter });
    expect(await failure(client.listListeners())).toBeInstanceOf(RateLimitedError);
    const before = servers['retry-after'].requests();
    const err = await failure(client.getDeployment('d-1'));
    expect(err).toBeInstanceOf(CredentialBusyError);
    // Capped at an hour: never a timer overflow.
    expect((err as CredentialBusyError).retryAfterMs).toBeLessThanOrEqual(3_600_000);
    expect((err as CredentialBusyError).retryAfterMs).toBeGreaterThan(3_500_000);
    expect(servers['retry-after'].requests()).toBe(before);
  });

  it("the client's signal (shutdown) cancels a call in flight", async () => {
    const stop = new AbortController();
    const client = clientOf('hang', { timeouts: { totalMs: 60_000 }, signal: stop.signal });
    const call = failure(client.listListeners());
    setTimeout(() => stop.abort(), 50);
    expect(await call).toBeInstanceOf(CancelledError);
  });
});

it('a deployment id longer than status allows is a malformed answer, never copied into status', async () => {
  const server = await startFixedServer(200, deploymentAnswer('d'.repeat(65), { name: 'app' }));
  try {
    const client = new ControlPlaneClient({
      credentials: { baseUrl: server.url, apiKey: 'k-test' },
      getRetries: 0,
    });
    const err = await client.getDeployment('x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect((err as MalformedResponseError).issues).toContainEqual({ path: 'id', code: 'too_big' });
  } finally {
    await server.close();
  }
});
