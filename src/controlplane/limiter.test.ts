import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CancelledError, CredentialBusyError } from './errors.ts';
import { RequestLimiter } from './limiter.ts';

describe('RequestLimiter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const started: number[] = [];
  const job = (hold: Promise<void>) => async () => {
    started.push(Date.now());
    await hold;
  };

  it.each([
    { rps: 2, concurrency: 10, jobs: 5, after: [0, 1000, 2000], expected: [2, 4, 5] },
    { rps: Number.POSITIVE_INFINITY, concurrency: 3, jobs: 5, after: [0, 1000], expected: [3, 3] },
  ])(
    'starts at most rps per second and concurrency at once: %j',
    async ({ rps, concurrency, jobs, after, expected }) => {
      started.length = 0;
      const limiter = new RequestLimiter({ rps, concurrency, maxWaitMs: 60_000 });
      const never = new Promise<void>(() => {});
      for (let i = 0; i < jobs; i++) void limiter.run(job(never));
      const seen: number[] = [];
      let elapsed = 0;
      for (const t of after) {
        await vi.advanceTimersByTimeAsync(t - elapsed);
        elapsed = t;
        seen.push(started.length);
      }
      expect(seen).toEqual(expected);
    },
  );

  it('holds every request while paused by the server', async () => {
    started.length = 0;
    const limiter = new RequestLimiter({ rps: 100, concurrency: 10, maxWaitMs: 10_000 });
    limiter.pause(5_000);
    void limiter.run(job(Promise.resolve()));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(started).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toHaveLength(1);
  });

  it('a pause longer than the wait bound sends nothing and says when to come back', async () => {
    const limiter = new RequestLimiter({ rps: 100, concurrency: 10, maxWaitMs: 2_000 });
    limiter.pause(86_400_000);
    let ran = false;
    const err = await limiter
      .run(
        async () => {
          ran = true;
        },
        { operation: 'getDeployment' },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CredentialBusyError);
    expect((err as CredentialBusyError).retryAfterMs).toBe(86_400_000);
    expect((err as Error).message).toContain('getDeployment: not sent');
    expect(ran).toBe(false);
  });

  it('a wait for a slot ends at the wait bound, and the slot goes to the next one', async () => {
    const limiter = new RequestLimiter({ rps: Number.POSITIVE_INFINITY, concurrency: 1, maxWaitMs: 2_000 });
    let release = () => {};
    void limiter.run(() => new Promise<void>((r) => (release = r)));
    const waiting = limiter.run(async () => 'late').catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(2_000);
    const err = await waiting;
    expect(err).toBeInstanceOf(CredentialBusyError);
    expect((err as CredentialBusyError).retryAfterMs).toBe(2_000);
    release();
    await expect(limiter.run(async () => 'next')).resolves.toBe('next');
  });

  it('the signal cancels a wait', async () => {
    const limiter = new RequestLimiter({ rps: Number.POSITIVE_INFINITY, concurrency: 1, maxWaitMs: 60_000 });
    void limiter.run(() => new Promise<void>(() => {}));
    const stop = new AbortController();
    const waiting = limiter.run(async () => 'never', { signal: stop.signal }).catch((e: unknown) => e);
    stop.abort();
    expect(await waiting).toBeInstanceOf(CancelledError);
  });

  it('is idle (may be dropped) only with nothing in flight, nobody waiting and no pause to keep', async () => {
    const limiter = new RequestLimiter({ rps: Number.POSITIVE_INFINITY, concurrency: 1 });
    expect(limiter.idle()).toBe(true);
    let release = () => {};
    const running = limiter.run(() => new Promise<void>((r) => (release = r)));
    await vi.advanceTimersByTimeAsync(0);
    expect(limiter.idle()).toBe(false);
    release();
    await running;
    limiter.pause(60_000);
    expect(limiter.idle()).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(limiter.idle()).toBe(true);
  });

  it('frees the slot when a request fails', async () => {
    const limiter = new RequestLimiter({ rps: Number.POSITIVE_INFINITY, concurrency: 1 });
    await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(async () => 'ok')).resolves.toBe('ok');
    expect(limiter.inFlight).toBe(0);
  });
});
