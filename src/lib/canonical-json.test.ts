import { describe, expect, it } from 'vitest';
import { canonicalJson, sameJson } from './canonical-json.ts';

const pairs: [string, unknown, unknown, boolean][] = [
  ['key order', { a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }, true],
  ['key order inside arrays', [{ type: 'Ready', status: 'True' }], [{ status: 'True', type: 'Ready' }], true],
  ['undefined dropped', { a: 1, b: undefined }, { a: 1 }, true],
  ['undefined dropped on the other side', { a: 1 }, { a: 1, b: undefined }, true],
  ['undefined against null', { a: undefined }, { a: null }, false],
  ['undefined in an array is null', [1, undefined], [1, null], true],
  ['array order matters', [1, 2], [2, 1], false],
  ['array length matters', [1], [1, 1], false],
  ['values matter', { a: 1 }, { a: 2 }, false],
  ['a key more', { a: 1 }, { a: 1, b: 2 }, false],
  ['a key fewer', { a: 1, b: 2 }, { a: 1 }, false],
  ['other keys, as many', { a: 1 }, { b: 1 }, false],
  ['an array is not an object', { 0: 'x' }, ['x'], false],
  ['an object is not an array', ['x'], { 0: 'x' }, false],
  ['null is not an empty object', null, {}, false],
  ['an empty object is not null', {}, null, false],
  ['a string is not a number', { a: '1' }, { a: 1 }, false],
  ['NaN and Infinity are both null', [Number.NaN], [Number.POSITIVE_INFINITY], true],
  ['NaN is null', [Number.NaN], [null], true],
  ['NaN is not 0', { a: Number.NaN }, { a: 0 }, false],
  [
    'nested equal',
    { s: { c: [{ t: 'a', m: { x: [1, 2] } }] } },
    { s: { c: [{ m: { x: [1, 2] }, t: 'a' }] } },
    true,
  ],
  [
    'nested differs deep down',
    { s: { c: [{ m: { x: [1, 2] } }] } },
    { s: { c: [{ m: { x: [1, 3] } }] } },
    false,
  ],
  ['empty and empty', {}, {}, true],
  ['false and null', false, null, false],
  ['inherited keys are not written', Object.create({ a: 1 }), {}, true],
  ['an own key against an inherited one', { a: 1 }, Object.create({ a: 1 }), false],
  ['a key named __proto__ is a key', JSON.parse('{"__proto__":{"x":1},"a":1}'), { a: 1 }, false],
];

describe('sameJson', () => {
  it.each(pairs)('%s', (_name, a, b, same) => {
    // canonicalJson is the reference; sameJson answers as comparing its texts does, either way round.
    expect(canonicalJson(a) === canonicalJson(b)).toBe(same);
    expect(sameJson(a, b)).toBe(same);
    expect(sameJson(b, a)).toBe(same);
  });
});
