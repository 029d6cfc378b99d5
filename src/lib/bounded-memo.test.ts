import { describe, expect, it } from 'vitest';
import { BoundedMemo } from './bounded-memo.ts';

describe('BoundedMemo', () => {
  it('computes once per text, and starts again when full', () => {
    const memo = new BoundedMemo<number>(2);
    let computed = 0;
    const get = (text: string) => memo.get(text, () => ++computed);
    expect([get('a'), get('a'), get('b'), get('a')]).toEqual([1, 1, 2, 1]);
    expect(computed).toBe(2);
    // A third text empties the table first: 'a' is computed again.
    expect([get('c'), get('c'), get('a')]).toEqual([3, 3, 4]);
    expect(computed).toBe(4);
  });
});
