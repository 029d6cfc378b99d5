import { describe, expect, it } from 'vitest';
import { isOlderVersion } from './resource-version.ts';

describe('isOlderVersion', () => {
  it.each([
    ['9', '10', true],
    ['10', '9', false],
    ['10', '10', false],
    ['99999999999999999998', '99999999999999999999', true],
    [undefined, '10', false],
    ['10', undefined, false],
    ['abc', '10', false],
    ['10', 'abc', false],
    ['', '10', false],
    ['-1', '10', false],
  ] as const)('%s before %s: %s', (a, b, older) => {
    expect(isOlderVersion(a, b)).toBe(older);
  });
});
