import { describe, expect, it } from 'vitest';
import { standbyReadDelayMs } from './operator-shards.ts';

describe('standbyReadDelayMs', () => {
  it.each([
    ['the earliest draw', 0, 3_000],
    ['a middle draw', 0.5, 5_500],
    ['the latest draw', 0.999_999, 8_000],
  ])('spreads the members over 3 to 8 retry periods: %s', (_case, draw, expected) => {
    expect(standbyReadDelayMs(1_000, () => draw)).toBe(expected);
  });
});
