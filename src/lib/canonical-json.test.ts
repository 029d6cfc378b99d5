import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';

describe('canonicalJson', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['key order', { a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }, true],
    [
      'key order inside arrays',
      [{ type: 'Ready', status: 'True' }],
      [{ status: 'True', type: 'Ready' }],
      true,
    ],
    ['undefined dropped', { a: 1, b: undefined }, { a: 1 }, true],
    ['array order matters', [1, 2], [2, 1], false],
    ['values matter', { a: 1 }, { a: 2 }, false],
  ])('%s', (_name, a, b, same) => {
    expect(canonicalJson(a) === canonicalJson(b)).toBe(same);
  });
});
