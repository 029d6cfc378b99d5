import { describe, expect, it } from 'vitest';
import { MIN_WRITE_MS, WriteFenced, writeFence } from './write-fence.ts';

describe('writeFence', () => {
  it.each<[string, { heldUntil?: number; mayWork?: boolean }, number | 'fenced']>([
    ['no Lease (one replica, no election): unbounded', {}, Number.POSITIVE_INFINITY],
    ['held for 5 s more: the write gets 5 s', { heldUntil: 15_000 }, 5_000],
    ['held for exactly the least a write is given', { heldUntil: 10_000 + MIN_WRITE_MS }, MIN_WRITE_MS],
    ['held for less than that: nothing is sent', { heldUntil: 10_000 + MIN_WRITE_MS - 1 }, 'fenced'],
    ['renewals failed since long ago', { heldUntil: 2_000 }, 'fenced'],
    ['never renewed (not joined, or lost)', { heldUntil: Number.NEGATIVE_INFINITY }, 'fenced'],
    ['held, but the key is another replica’s now', { heldUntil: 15_000, mayWork: false }, 'fenced'],
  ])('%s', (_, given, expected) => {
    const fence = writeFence({
      now: () => 10_000,
      ...(given.heldUntil === undefined ? {} : { heldUntil: () => given.heldUntil as number }),
      ...(given.mayWork === undefined ? {} : { mayWork: () => given.mayWork as boolean }),
    });
    if (expected === 'fenced') expect(() => fence('ns/a')).toThrow(WriteFenced);
    else expect(fence('ns/a')).toBe(expected);
  });
});
