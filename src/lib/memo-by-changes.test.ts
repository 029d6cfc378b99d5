import { describe, expect, it } from 'vitest';
import { memoByChanges } from './memo-by-changes.ts';

describe('memoByChanges', () => {
  it.each<[string, number[][], number]>([
    [
      'counts once while nothing changes',
      [
        [1, 0],
        [1, 0],
        [1, 0],
      ],
      1,
    ],
    [
      'counts again when the first counter moves',
      [
        [1, 0],
        [2, 0],
        [2, 0],
      ],
      2,
    ],
    [
      'counts again when the second counter moves',
      [
        [1, 0],
        [1, 1],
        [1, 2],
      ],
      3,
    ],
    ['counts again when a counter comes back to an earlier value', [[1], [2], [1]], 3],
    ['counts again when the counters are fewer', [[1, 0], [1]], 2],
  ])('%s', (_name, readings, counted) => {
    let reading = 0;
    let counts = 0;
    const figure = memoByChanges(
      () => readings[reading] ?? [],
      () => ++counts,
    );
    const seen: number[] = [];
    for (reading = 0; reading < readings.length; reading++) seen.push(figure());
    expect(counts).toBe(counted);
    expect(seen.at(-1)).toBe(counted);
  });
});
