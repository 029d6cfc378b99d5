import { describe, expect, it } from 'vitest';
import { firesOnDay, parseCron } from './cron.ts';
import { WindowError } from './window-error.ts';

const sorted = (s: ReadonlySet<number>) => [...s].sort((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('parseCron: the values of each field', () => {
  it.each<[string, string, keyof ReturnType<typeof parseCron>, number[]]>([
    ['a value', '0 22 * * *', 'hours', [22]],
    ['a star', '0 * * * *', 'hours', range(0, 23)],
    ['a range', '0 9-17 * * *', 'hours', range(9, 17)],
    ['a list', '0 0 1,15 * *', 'daysOfMonth', [1, 15]],
    ['a step of a star', '*/15 * * * *', 'minutes', [0, 15, 30, 45]],
    ['a step of a range', '0 8-18/4 * * *', 'hours', [8, 12, 16]],
    ['a value with a step runs to the end', '5/20 * * * *', 'minutes', [5, 25, 45]],
    ['month names, any case', '0 0 * JAN,jul *', 'months', [1, 7]],
    ['a range of month names', '0 0 * Nov-DEC *', 'months', [11, 12]],
    ['day names', '0 0 * * MON-FRI', 'daysOfWeek', [1, 2, 3, 4, 5]],
    ['7 is Sunday', '0 0 * * 7', 'daysOfWeek', [0]],
    ['a range to 7', '0 0 * * 5-7', 'daysOfWeek', [0, 5, 6]],
    ['a list mixing names and ranges', '0 0 * * sun,2-3', 'daysOfWeek', [0, 2, 3]],
  ])('%s: %s', (_, text, field, want) => {
    expect(sorted(parseCron(text, 'f')[field] as ReadonlySet<number>)).toEqual(want);
  });
});

describe('parseCron: refuses, naming the field and the rule', () => {
  it.each<[string, string, string]>([
    ['four fields', '0 22 * *', 'must be a cron expression of five fields'],
    ['six fields', '0 0 22 * * *', 'got 6 field(s)'],
    ['nothing', '  ', 'got 0 field(s)'],
    ['a minute of 60', '60 * * * *', 'the minute field "60" must be *, or values'],
    ['an hour of 24', '* 24 * * *', 'the hour field "24"'],
    ['a day of month of 0', '* * 0 * *', 'the day-of-month field "0"'],
    ['a month of 13', '* * * 13 *', 'the month field "13"'],
    [
      'an unknown day name',
      '* * * * MOX',
      'the day-of-week field "MOX" must be *, or values, ranges, lists and steps of numbers 0-7 or a name SUN-SAT',
    ],
    ['a step of 0', '*/0 * * * *', 'must have a step that is a whole number above 0'],
    ['a step that is no number', '*/x * * * *', 'must have a step'],
    ['a range backwards', '5-1 * * * *', 'is a range that ends before it starts'],
    ['two dashes', '1-2-3 * * * *', 'has more than one "-"'],
    ['two slashes', '*/2/3 * * * *', 'has more than one "/"'],
    ['an empty list item', '1,,2 * * * *', 'the minute field ""'],
    ['a day no month has', '0 0 30 2 *', 'never fires: no month it names has the day of month it names'],
    ['the 31st of 30-day months', '0 0 31 4,6,9,11 *', 'never fires'],
  ])('%s: %s', (_, text, message) => {
    let caught: unknown;
    try {
      parseCron(text, 'spec.deploymentWindows[0].schedule');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(WindowError);
    expect((caught as WindowError).field).toBe('spec.deploymentWindows[0].schedule');
    expect((caught as Error).message).toContain(message);
  });

  it('takes February 29th: it fires in leap years', () => {
    expect(() => parseCron('0 0 29 2 *', 'f')).not.toThrow();
  });
  it('takes the 31st with a day of week restricted too: the OR rule fires on the weekdays', () => {
    expect(() => parseCron('0 0 31 2 MON', 'f')).not.toThrow();
  });
});

describe('firesOnDay: the two day fields', () => {
  // [schedule, month, day of month, weekday (0 Sunday), fires]
  it.each<[string, number, number, number, boolean]>([
    ['both restricted: the 13th, a Monday (OR)', 2, 13, 1, true],
    ['both restricted: a Friday, the 14th (OR)', 2, 14, 5, true],
    ['both restricted: neither', 2, 14, 1, false],
  ])('0 0 13 * FRI, %s', (_, month, day, weekday, fires) => {
    expect(firesOnDay(parseCron('0 0 13 * FRI', 'f'), month, day, weekday)).toBe(fires);
  });

  it.each<[string, string, number, number, number, boolean]>([
    ['day of week *: the day of month alone', '0 0 13 * *', 2, 14, 5, false],
    ['day of month *: the day of week alone', '0 0 * * FRI', 2, 13, 1, false],
    ['day of month *: the day of week alone, matching', '0 0 * * FRI', 2, 14, 5, true],
    ['a stepped field is restricted (OR)', '0 0 */2 * FRI', 2, 2, 5, true],
    ['a stepped field is restricted (OR), an odd Friday', '0 0 */2 * FRI', 2, 3, 5, true],
    ['? is a star', '0 0 13 * ?', 2, 13, 1, true],
    ['another month', '0 0 13 MAR FRI', 2, 13, 5, false],
  ])('%s: %s', (_, text, month, day, weekday, fires) => {
    expect(firesOnDay(parseCron(text, 'f'), month, day, weekday)).toBe(fires);
  });
});
