import { describe, expect, it } from 'vitest';
import { applyMergePatch, statusMergePatch } from './status-patch.ts';

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
    // Applied, the patch turns `before` into `after` (undefined fields absent).
    expect(applyMergePatch(before, expected)).toEqual(JSON.parse(JSON.stringify(after)));
  });

  it('applied over a status changed meanwhile, keeps the fields the patch does not name', () => {
    const patch = statusMergePatch({ a: 1, v: { x: 1 } }, { a: 2, v: { x: 1, y: 2 } });
    expect(applyMergePatch({ a: 1, b: 'theirs', v: { x: 1, z: 3 } }, patch)).toEqual({
      a: 2,
      b: 'theirs',
      v: { x: 1, y: 2, z: 3 },
    });
  });
});
