import { describe, expect, it } from 'vitest';
import {
  AGGREGATE_WINDOW_MS,
  COMBINED_PREFIX,
  EventCorrelator,
  SPAM_BURST,
  SPAM_REFILL_MS,
} from './event-correlation.ts';

const subject = { namespace: 'ns', name: 'obj', uid: 'uid-1' };
const other = { namespace: 'ns', name: 'other', uid: 'uid-2' };

/** One event: at `at` ms, about `of`, with `message` (type Warning, reason Failed unless given). */
interface Step {
  at: number;
  message: string;
  of?: typeof subject;
  type?: string;
  reason?: string;
}

/** What each step gives: its message, whether it went to the combined Event, whether it was dropped. */
function run(steps: Step[]): Array<{ message: string; combined: boolean; dropped: boolean }> {
  const correlator = new EventCorrelator();
  const combinedKeys = new Set<string>();
  return steps.map((s) => {
    const e = correlator.correlate(
      s.of ?? subject,
      s.type ?? 'Warning',
      s.reason ?? 'Failed',
      s.message,
      s.at,
    );
    const combined = e.message.startsWith(COMBINED_PREFIX);
    if (combined) combinedKeys.add(e.key);
    expect(combinedKeys.size).toBeLessThanOrEqual(1);
    return { message: e.message, combined, dropped: e.dropped };
  });
}

const distinct = (count: number, from = 0, at = (i: number) => i * 1000): Step[] =>
  Array.from({ length: count }, (_, i) => ({ at: at(i + from), message: `failure ${i + from}` }));

describe('EventCorrelator: similar events', () => {
  it.each([
    { name: '9 different messages within 10 minutes: each its own', steps: distinct(9), combinedFrom: -1 },
    { name: 'the 10th different message is combined', steps: distinct(10), combinedFrom: 9 },
    { name: 'and so is each new one after it', steps: distinct(14), combinedFrom: 9 },
    {
      name: 'a gap of more than 10 minutes starts over',
      steps: [...distinct(9), { at: 8000 + AGGREGATE_WINDOW_MS + 1, message: 'failure 9' }],
      combinedFrom: -1,
    },
    {
      name: 'the window runs from the latest similar event, not the first',
      steps: distinct(10, 0, (i) => i * 100_000),
      combinedFrom: 9,
    },
  ])('$name', ({ steps, combinedFrom }) => {
    const got = run(steps);
    got.forEach((e, i) => {
      const combined = combinedFrom >= 0 && i >= combinedFrom;
      expect(e).toEqual({
        message: combined ? `${COMBINED_PREFIX}${steps[i]?.message}` : steps[i]?.message,
        combined,
        dropped: false,
      });
    });
  });

  it.each([
    { name: 'other objects', vary: (i: number) => ({ of: i % 2 === 0 ? subject : other }) },
    { name: 'other reasons', vary: (i: number) => ({ reason: i % 2 === 0 ? 'Failed' : 'Refused' }) },
    { name: 'other types', vary: (i: number) => ({ type: i % 2 === 0 ? 'Warning' : 'Normal' }) },
  ])(
    'similar only within one object, type and reason: 10 messages across $name are not combined',
    ({ vary }) => {
      const got = run(distinct(10).map((s, i) => ({ ...s, ...vary(i) })));
      expect(got.filter((e) => e.combined)).toEqual([]);
    },
  );

  it('a repeat of one of the messages is not combined: it counts on its own Event', () => {
    const steps = [...distinct(10), { at: 11_000, message: 'failure 5' }];
    const correlator = new EventCorrelator();
    const keys = steps.map((s) => correlator.correlate(subject, 'Warning', 'Failed', s.message, s.at).key);
    expect(keys[10]).toBe(keys[5]);
  });
});

describe('EventCorrelator: spam filter', () => {
  const same = (count: number, at = () => 0): Step[] =>
    Array.from({ length: count }, () => ({ at: at(), message: 'same' }));
  it.each([
    { name: `${SPAM_BURST} events at once pass`, steps: same(SPAM_BURST), dropped: 0 },
    { name: 'the ones after the burst are dropped', steps: same(SPAM_BURST + 3), dropped: 3 },
    {
      name: 'one more passes each 5 minutes',
      steps: [
        ...same(SPAM_BURST + 1),
        { at: SPAM_REFILL_MS, message: 'same' },
        { at: SPAM_REFILL_MS, message: 'x' },
      ],
      dropped: 2,
    },
    {
      name: 'per object: another object has its own burst',
      steps: [...same(SPAM_BURST), { at: 0, message: 'same', of: other }],
      dropped: 0,
    },
    {
      name: 'per type: Normal events do not use up the Warnings',
      steps: [...same(SPAM_BURST), { at: 0, message: 'same', type: 'Normal' }],
      dropped: 0,
    },
  ])('$name', ({ steps, dropped }) => {
    expect(run(steps).filter((e) => e.dropped)).toHaveLength(dropped);
  });
});
