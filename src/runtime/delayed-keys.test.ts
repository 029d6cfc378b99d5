import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from './clock.ts';
import { DelayedKeys, type DueAs } from './delayed-keys.ts';

type Schedule = { key: string; at: number; as?: DueAs };

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
    for (const s of schedules) delayed.schedule(s.key, s.at, s.as ?? 'normal');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(got).toEqual(due);
  });

  it.each<{ name: string; schedules: Schedule[]; as: DueAs }>([
    { name: 'scheduled first', schedules: [{ key: 'a', at: 100, as: 'first' }], as: 'first' },
    { name: 'scheduled as any other', schedules: [{ key: 'a', at: 100 }], as: 'normal' },
    { name: 'scheduled as a resync', schedules: [{ key: 'a', at: 100, as: 'resync' }], as: 'resync' },
    {
      name: 'first, then earlier without it: the latest schedule says',
      schedules: [
        { key: 'a', at: 200, as: 'first' },
        { key: 'a', at: 100 },
      ],
      as: 'normal',
    },
    {
      name: 'a resync, then work sooner: the work says',
      schedules: [
        { key: 'a', at: 200, as: 'resync' },
        { key: 'a', at: 100, as: 'first' },
      ],
      as: 'first',
    },
    {
      name: 'work, then a resync later: the work says',
      schedules: [
        { key: 'a', at: 100 },
        { key: 'a', at: 200, as: 'resync' },
      ],
      as: 'normal',
    },
  ])('says how a key joins the queue: $name', async ({ schedules, as }) => {
    const got: DueAs[] = [];
    const delayed = new DelayedKeys(systemClock, (_key, dueAs) => got.push(dueAs));
    for (const s of schedules) delayed.schedule(s.key, s.at, s.as ?? 'normal');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(got).toEqual([as]);
  });

  it('keeps one timer whatever the number of keys, and none once cleared', async () => {
    const delayed = new DelayedKeys(systemClock, () => undefined);
    for (let i = 0; i < 1_000; i++) delayed.schedule(`k${i}`, 100 + i, 'normal');
    expect(vi.getTimerCount()).toBe(1);
    delayed.clear();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('hands over nothing after clear', async () => {
    const got: string[] = [];
    const delayed = new DelayedKeys(systemClock, (key) => got.push(key));
    delayed.schedule('a', 100, 'normal');
    delayed.clear();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(got).toEqual([]);
  });
});
