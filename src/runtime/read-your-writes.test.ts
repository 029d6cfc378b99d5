import { describe, expect, it } from 'vitest';
import { ReadYourWrites } from './read-your-writes.ts';

type Obj = ReturnType<typeof obj>;
const obj = (rv: string, marker: string) => ({
  metadata: { namespace: 'ns', name: 'a', resourceVersion: rv },
  marker,
});

/** A ReadYourWrites over a cache the test sets. */
function withCache(rv?: string) {
  const cache: { current: Obj | undefined } = { current: rv === undefined ? undefined : obj(rv, 'cache') };
  return { cache, written: new ReadYourWrites<Obj>(() => cache.current) };
}

describe('ReadYourWrites', () => {
  it.each<[string, string | undefined, string]>([
    ['stale cache: the written object stands in', '1', 'written'],
    ['cache caught up with the write', '2', 'cache'],
    ['cache moved past the write', '3', 'cache'],
  ])('%s', (_name, cachedRv, expected) => {
    const { written } = withCache('1');
    written.remember(obj('1', 'before'), obj('2', 'written'));
    const read = written.read(obj(cachedRv as string, 'cache'));
    expect(read?.marker).toBe(expected);
  });

  it('forgets the write once the cache moved on', () => {
    const { written } = withCache('1');
    written.remember(obj('1', 'before'), obj('2', 'written'));
    expect(written.read(obj('2', 'cache'))?.marker).toBe('cache');
    expect(written.read(obj('1', 'cache'))?.marker).toBe('cache');
  });

  it.each<[string, string, string]>([
    ['the informer delivered the write: it is dropped', '2', 'cache'],
    ['the informer delivered something newer: dropped', '3', 'cache'],
    ['the informer delivered the overwritten version again: kept', '1', 'written'],
  ])('%s', (_name, deliveredRv, expected) => {
    const { written } = withCache('1');
    written.remember(obj('1', 'before'), obj('2', 'written'));
    written.delivered(obj(deliveredRv, 'cache'));
    // What a later read of the stale version gets tells whether the write was still held.
    expect(written.read(obj('1', 'cache'))?.marker).toBe(expected);
  });

  it.each<[string, string | undefined, number]>([
    ['the cache already shows the write (its watch event came before its answer)', '2', 0],
    ['the cache shows something newer still', '3', 0],
    ['the cache still shows the version written over', '1', 1],
    ['the object is not in the cache', undefined, 1],
  ])('remembers a write unless the cache has moved past it: %s', (_name, cachedRv, held) => {
    const { written } = withCache(cachedRv);
    written.remember(obj('1', 'before'), obj('2', 'written'));
    expect(written.size).toBe(held);
  });

  it('two writes in one pass: the first written version is stale too, the last one stands in', () => {
    const { written } = withCache('1');
    written.remember(obj('1', 'before'), obj('2', 'finalizer added'));
    written.remember(obj('2', 'finalizer added'), obj('3', 'status written'));
    expect(written.read(obj('1', 'cache'))?.marker).toBe('status written');
    expect(written.read(obj('2', 'cache'))?.marker).toBe('status written');
    expect(written.read(obj('3', 'cache'))?.marker).toBe('cache');
  });

  it('passes through objects it never wrote, and absence', () => {
    const { written } = withCache();
    expect(written.read(obj('5', 'cache'))?.marker).toBe('cache');
    expect(written.read(undefined)).toBeUndefined();
  });
});
