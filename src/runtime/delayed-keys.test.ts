import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from './clock.ts';
import { DelayedKeys } from './delayed-keys.ts';

type Schedule = { key: string; at: number; first?: boolean };

describe('DelayedKeys', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each<{ name: string; schedules: Schedule[]; due: Array<[number, string]> }>([
    {
      name: 'in time order, whatever the order of scheduling',
      schedules: [
        { key: 'b', at: 200 },
        { key: 'a', at: 100 },
        { key: 'c', at: 300 },
      ],
      due: [
        [100, 'a'],
        [200, 'b'],
        [300, 'c'],
      ],
    },
    {
      name: 'an earlier time for a key wins, once',
      schedules: [
        { key: 'a', at: 300 },
        { key: 'a', at: 100 },
      ],
      due: [[100, 'a']],
    },
    {
      name: 'a later time for a scheduled key changes nothing',
      schedules: [
        { key: 'a', at: 100 },
        { key: 'a', at: 300 },
      ],
      due: [[100, 'a']],
    },
    {
      name: 'keys due at one time come together',
      schedules: [
        { key: 'a', at: 100 },
        { key: 'b', at: 100 },
      ],
      due: [
        [100, 'a'],
        [100, 'b'],
      ],
    },
  ])('hands keys over $name', async ({ schedules, due }) => {
    const got: Array<[number, string]> = [];
    const delayed = new DelayedKeys(systemClock, (key) => got.push([Date.now(), key]));
    for (const s of schedules) delayed.schedule(s.key, s.at, s.first ?? false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(got).toEqual(due);
  });

  it.each<{ name: string; schedules: Schedule[]; first: boolean }>([
    { name: 'scheduled first', schedules: [{ key: 'a', at: 100, first: true }], first: true },
    { name: 'not scheduled first', schedules: [{ key: 'a', at: 100 }], first: false },
    {
      name: 'first, then earlier without it: the latest schedule says',
      schedules: [
        { key: 'a', at: 200, first: true },
        { key: 'a', at: 100 },
      ],
      first: false,
    },
  ])('says whether a key goes first: $name', async ({ schedules, first }) => {
    const got: boolean[] = [];
    const delayed = new DelayedKeys(systemClock, (_key, isFirst) => got.push(isFirst));
    for (const s of schedules) delayed.schedule(s.key, s.at, s.first ?? false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(got).toEqual([first]);
  });

  it('keeps one timer whatever the number of keys, and none once cleared', async () => {
    const delayed = new DelayedKeys(systemClock, () => undefined);
    for (let i = 0; i < 1_000; i++) delayed.schedule(`k${i}`, 100 + i, false);
    expect(vi.getTimerCount()).toBe(1);
    delayed.clear();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('hands over nothing after clear', async () => {
    const got: string[] = [];
    const delayed = new DelayedKeys(systemClock, (key) => got.push(key));
    delayed.schedule('a', 100, false);
    delayed.clear();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(got).toEqual([]);
  });
});
