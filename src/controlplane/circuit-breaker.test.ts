import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { breaksCircuit, CircuitBreaker } from './circuit-breaker.ts';
import {
  BadRequestError,
  BudgetExceededError,
  CircuitOpenError,
  MalformedResponseError,
  RateLimitedError,
  ResponseTooLargeError,
  UnavailableError,
} from './errors.ts';

const timeout = () => new UnavailableError('getDeployment', 'no complete answer within 30s');

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function breaker(probe: () => Promise<void> = async () => {}) {
  const changes: string[] = [];
  const probes = vi.fn(probe);
  const b = new CircuitBreaker({
    threshold: 3,
    baseOpenMs: 1_000,
    maxOpenMs: 4_000,
    probe: probes,
    now: () => Date.now(),
    onChange: (s) => changes.push(s),
  });
  return { b, changes, probes };
}

describe('CircuitBreaker', () => {
  it.each<[string, unknown, boolean]>([
    ['a timeout', timeout(), true],
    [
      "an answer over its size bound (one tenant's big objects)",
      new ResponseTooLargeError('x', 2097152),
      false,
    ],
    ['a listing past its walk budget', new BudgetExceededError('x', 'passed 16 MiB'), false],
    ['a malformed answer about one deployment', new MalformedResponseError('x', 200, 'not JSON'), false],
    ['a 400', new BadRequestError('x', 'taken'), false],
    ['a 429 (the limiter pauses for it)', new RateLimitedError('x', 1000), false],
    ['a programming error', new Error('boom'), false],
  ])('%s counts toward opening: %s', (_, err, counts) => {
    const { b } = breaker();
    for (let i = 0; i < 3; i++) b.record(err);
    expect(b.open).toBe(counts);
  });

  it('opens after three failures in a row, not after three with a success between', () => {
    const { b } = breaker();
    b.record(timeout());
    b.record(timeout());
    b.record(undefined);
    b.record(timeout());
    expect(b.open).toBe(false);
    b.record(timeout());
    b.record(timeout());
    expect(b.open).toBe(true);
  });

  it('while open, refuses at once with when to come back, and sends nothing', () => {
    const { b } = breaker();
    for (let i = 0; i < 3; i++) b.record(timeout());
    let err: unknown;
    try {
      b.admit('getDeployment');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CircuitOpenError);
    expect((err as CircuitOpenError).retryAfterMs).toBe(1_000);
    expect((err as Error).message).toMatch(/paused after 3 failures in a row/);
  });

  it('probes on its own timer with backoff, and closes on the first probe that succeeds', async () => {
    let healthy = false;
    const { b, changes, probes } = breaker(async () => {
      if (!healthy) throw timeout();
    });
    for (let i = 0; i < 3; i++) b.record(timeout());
    expect(changes).toEqual(['open']);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(probes).toHaveBeenCalledTimes(1);
    // The next probe waits twice as long, then the ceiling.
    await vi.advanceTimersByTimeAsync(1_999);
    expect(probes).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(probes).toHaveBeenCalledTimes(2);
    healthy = true;
    await vi.advanceTimersByTimeAsync(4_000);
    expect(probes).toHaveBeenCalledTimes(3);
    expect(b.open).toBe(false);
    expect(changes).toEqual(['open', 'closed']);
    expect(() => b.admit('getDeployment')).not.toThrow();
  });

  it('close() stops probing', async () => {
    const { b, probes } = breaker(async () => {
      throw timeout();
    });
    for (let i = 0; i < 3; i++) b.record(timeout());
    b.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(probes).not.toHaveBeenCalled();
  });
});

describe("hole 7: only the server's failures count, not answers to what one namespace sent", () => {
  const refused = () => new UnavailableError('createDeployment', 'connection refused', { unsent: true });
  it.each<[string, unknown, boolean, boolean]>([
    ["a timeout of the controller's own read", timeout(), false, true],
    [
      "a 500 to the controller's own read",
      new UnavailableError('x', 'HTTP 500', { status: 500 }),
      false,
      true,
    ],
    ["a timeout of a namespace's create", timeout(), true, false],
    ["a 500 to a namespace's patch", new UnavailableError('x', 'HTTP 500', { status: 500 }), true, false],
    ["a namespace's create that found no server (nothing sent)", refused(), true, true],
  ])('%s: counts %s', (_, err, fromOneNamespace, counts) => {
    expect(breaksCircuit(err, fromOneNamespace)).toBe(counts);
    const { b } = breaker();
    for (let i = 0; i < 3; i++) b.record(err, fromOneNamespace);
    expect(b.open).toBe(counts);
  });
});
