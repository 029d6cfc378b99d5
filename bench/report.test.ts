import { describe, expect, it } from 'vitest';
import { cpuGrowthSummary, type RoundResult } from './report.ts';

/** A result with only what the summary reads: N, its round and the CPU from the first apply to all Ready. */
const run = (n: number, round: number, cpuMsPerObject: number) =>
  ({ n, round, cpu: { convergenceSeconds: (cpuMsPerObject * n) / 1000 } }) as RoundResult;

describe('cpuGrowthSummary', () => {
  it.each([
    {
      name: 'one round: the figure per N and the growth',
      results: [run(1000, 1, 12), run(10000, 1, 13.2)],
      want: [
        'CPU per object at N = 1000: 12.00 ms (median 12.00)',
        'CPU per object at N = 10000: 13.20 ms (median 13.20)',
        'CPU per object from N = 1000 to 10000: +10.0% (medians)',
      ],
    },
    {
      name: 'three rounds: the growth of the medians, and within each round',
      results: [
        run(1000, 1, 10),
        run(10000, 1, 13),
        run(1000, 2, 12),
        run(10000, 2, 12),
        run(1000, 3, 13),
        run(10000, 3, 12.6),
      ],
      want: [
        'CPU per object at N = 1000: 10.00, 12.00, 13.00 ms (median 12.00)',
        'CPU per object at N = 10000: 13.00, 12.00, 12.60 ms (median 12.60)',
        'CPU per object from N = 1000 to 10000: +5.0% (medians); within each round +30.0%, +0.0%, −3.1%',
      ],
    },
    {
      name: 'an even number of rounds: the median is the mean of the middle two',
      results: [run(1000, 1, 10), run(10000, 1, 11), run(1000, 2, 12), run(10000, 2, 11)],
      want: [
        'CPU per object at N = 1000: 10.00, 12.00 ms (median 11.00)',
        'CPU per object at N = 10000: 11.00, 11.00 ms (median 11.00)',
        'CPU per object from N = 1000 to 10000: +0.0% (medians); within each round +10.0%, −8.3%',
      ],
    },
    {
      name: 'a round whose largest N failed counts in the medians but has no growth of its own',
      results: [run(1000, 1, 10), run(10000, 1, 11), run(1000, 2, 12)],
      want: [
        'CPU per object at N = 1000: 10.00, 12.00 ms (median 11.00)',
        'CPU per object at N = 10000: 11.00 ms (median 11.00)',
        'CPU per object from N = 1000 to 10000: +0.0% (medians); within each round +10.0%',
      ],
    },
    {
      name: 'one N: no growth',
      results: [run(3333, 1, 12.1)],
      want: ['CPU per object at N = 3333: 12.10 ms (median 12.10)'],
    },
    { name: 'no results', results: [], want: [] },
  ])('$name', ({ results, want }) => {
    expect(cpuGrowthSummary(results)).toEqual(want);
  });
});
