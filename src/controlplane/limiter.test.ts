import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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
      const limiter = new RequestLimiter({ rps, concurrency });
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
    const limiter = new RequestLimiter({ rps: 100, concurrency: 10 });
    limiter.pause(5_000);
    void limiter.run(job(Promise.resolve()));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(started).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toHaveLength(1);
  });

  it('frees the slot when a request fails', async () => {
    const limiter = new RequestLimiter({ rps: Number.POSITIVE_INFINITY, concurrency: 1 });
    await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(async () => 'ok')).resolves.toBe('ok');
    expect(limiter.inFlight).toBe(0);
  });
});
