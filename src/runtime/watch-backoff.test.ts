import { describe, expect, it } from 'vitest';
import { WatchBackoff } from './watch-backoff.ts';

/** A backoff on a clock the test moves, with a fixed random draw. */
function backoff(random: number, more: ConstructorParameters<typeof WatchBackoff>[0] = {}) {
  let now = 0;
  const b = new WatchBackoff({ now: () => now, random: () => random, ...more });
  return {
    next: () => b.next(),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('WatchBackoff (client-go reflector: 800ms, x2, 30s cap, jitter 1.0, reset after 2 min)', () => {
  it.each<{ name: string; random: number; expected: number[] }>([
    {
      name: 'no jitter drawn: the base, doubling to 30 s',
      random: 0,
      expected: [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000],
    },
    {
      name: 'the largest jitter: up to twice the base',
      random: 0.999,
      expected: [1599, 3198, 6397, 12794, 25587, 51174, 59970, 59970],
    },
    { name: 'half the jitter', random: 0.5, expected: [1200, 2400, 4800, 9600, 19200, 38400, 45000, 45000] },
  ])('$name', ({ random, expected }) => {
    const b = backoff(random);
    expect(expected.map(() => b.next())).toEqual(expected);
  });

  it.each<{ name: string; quietMs: number; expected: number }>([
    { name: 'a wait within 2 min of the last keeps growing', quietMs: 120_000, expected: 6400 },
    { name: 'a wait more than 2 min after the last starts again at 800 ms', quietMs: 120_001, expected: 800 },
  ])('$name', ({ quietMs, expected }) => {
    const b = backoff(0);
    b.next();
    b.next();
    b.next();
    b.advance(quietMs);
    expect(b.next()).toBe(expected);
  });

  it('takes its own initial and maximum', () => {
    const b = backoff(0, { initialMs: 20, maxMs: 50 });
    expect([b.next(), b.next(), b.next(), b.next()]).toEqual([20, 40, 50, 50]);
  });
});
