import { describe, expect, it } from 'vitest';
import { NamespaceRate } from './namespace-rate.ts';

describe('NamespaceRate: measurements per minute per namespace', () => {
  it('allows the burst, then refuses with when to come back', () => {
    const rate = new NamespaceRate(60, 3);
    expect([1, 2, 3].map(() => rate.take('a', 0).allowed)).toEqual([true, true, true]);
    expect(rate.take('a', 0)).toEqual({ allowed: false, retryAfterMs: 1000 });
  });

  it('refills with time, up to the burst', () => {
    const rate = new NamespaceRate(60, 2);
    rate.take('a', 0, 2);
    expect(rate.take('a', 1000).allowed).toBe(true);
    expect(rate.take('a', 1000).allowed).toBe(false);
    expect(rate.take('a', 600_000, 2).allowed).toBe(true);
    expect(rate.take('a', 600_000).allowed).toBe(false);
  });

  it("spends one namespace's measurements, never another's", () => {
    const rate = new NamespaceRate(60, 2);
    rate.take('hostile', 0, 2);
    expect(rate.take('hostile', 0).allowed).toBe(false);
    expect(rate.take('quiet', 0).allowed).toBe(true);
  });

  it('a cost above the burst takes the whole burst', () => {
    const rate = new NamespaceRate(60, 2);
    expect(rate.take('a', 0, 5).allowed).toBe(true);
    expect(rate.take('a', 0).allowed).toBe(false);
  });
});
