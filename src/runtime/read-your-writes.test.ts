import { describe, expect, it } from 'vitest';
import { ReadYourWrites } from './read-your-writes.ts';

const obj = (rv: string, marker: string) => ({
  metadata: { namespace: 'ns', name: 'a', resourceVersion: rv },
  marker,
});

describe('ReadYourWrites', () => {
  it.each<[string, string | undefined, string]>([
    ['stale cache: the written object stands in', '1', 'written'],
    ['cache caught up with the write', '2', 'cache'],
    ['cache moved past the write', '3', 'cache'],
  ])('%s', (_name, cachedRv, expected) => {
    const written = new ReadYourWrites<ReturnType<typeof obj>>();
    written.remember(obj('1', 'before'), obj('2', 'written'));
    const read = written.read(obj(cachedRv as string, 'cache'));
    expect(read?.marker).toBe(expected);
  });

  it('forgets the write once the cache moved on', () => {
    const written = new ReadYourWrites<ReturnType<typeof obj>>();
    written.remember(obj('1', 'before'), obj('2', 'written'));
    expect(written.read(obj('2', 'cache'))?.marker).toBe('cache');
    expect(written.read(obj('1', 'cache'))?.marker).toBe('cache');
  });

  it.each<[string, string, string]>([
    ['the informer delivered the write: it is dropped', '2', 'cache'],
    ['the informer delivered something newer: dropped', '3', 'cache'],
    ['the informer delivered the overwritten version again: kept', '1', 'written'],
  ])('%s', (_name, deliveredRv, expected) => {
    const written = new ReadYourWrites<ReturnType<typeof obj>>();
    written.remember(obj('1', 'before'), obj('2', 'written'));
    written.delivered(obj(deliveredRv, 'cache'));
    // What a later read of the stale version gets tells whether the write was still held.
    expect(written.read(obj('1', 'cache'))?.marker).toBe(expected);
  });

  it('passes through objects it never wrote, and absence', () => {
    const written = new ReadYourWrites<ReturnType<typeof obj>>();
    expect(written.read(obj('5', 'cache'))?.marker).toBe('cache');
    expect(written.read(undefined)).toBeUndefined();
  });
});
