import { describe, expect, it } from 'vitest';
import { statusMergePatch } from './status-patch.ts';

describe('statusMergePatch', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    ['nested removal is null', { v: { current: { a: 1 }, n: 1 } }, { v: { n: 1 } }, { v: { current: null } }],
    ['nested change only', { v: { a: 1, b: 2 } }, { v: { a: 1, b: 3 } }, { v: { b: 3 } }],
    ['arrays replaced whole', { l: [1, 2] }, { l: [1] }, { l: [1] }],
    ['unchanged is empty', { v: { a: 1 } }, { v: { a: 1 } }, {}],
    ['top-level removal', { a: 1 }, {}, { a: null }],
    ['undefined counts as removed', { a: 1, b: 2 }, { a: 1, b: undefined }, { b: null }],
    ['new nested object whole', {}, { v: { a: 1 } }, { v: { a: 1 } }],
  ])('%s', (_name, before, after, expected) => {
    expect(statusMergePatch(before, after)).toEqual(expected);
  });
});
