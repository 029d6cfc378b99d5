/**
 * A five-field cron expression (minute hour day-of-month month day-of-week), as Kubernetes CronJobs and
 * Argo CD's sync windows read it (robfig/cron's standard parser): `*`, values, ranges `a-b`, lists
 * `a,b`, steps `*\/n`, `a-b/n` and `a/n` (from a to the field's end), month names JAN-DEC and day names
 * SUN-SAT (any case), 0 or 7 for Sunday. When both day fields are restricted a day matches either
 * (cron's OR rule); when one is `*` the other alone decides. A field is `*` only when written `*` or
 * `?`: `*\/2` restricts it, as in robfig/cron (Vixie cron would count it as `*`).
 */
import { WindowError } from './window-error.ts';

export interface CronSchedule {
  /** The expression as given. */
  readonly text: string;
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  /** 0 is Sunday; 7 is read as 0. */
  readonly daysOfWeek: ReadonlySet<number>;
  readonly dayOfMonthStar: boolean;
  readonly dayOfWeekStar: boolean;
}

interface FieldRule {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: readonly FieldRule[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  { name: 'day-of-week', min: 0, max: 7, names: DAY_NAMES },
];

/** The most days each month can have (February in a leap year). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Parses `text`; a WindowError names `field` and the rule broken. */
export function parseCron(text: string, field: string): CronSchedule {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5 || parts[0] === '') {
    throw new WindowError(
      field,
      `must be a cron expression of five fields (minute hour day-of-month month day-of-week), like "0 22 * * FRI"; got ${parts[0] === '' ? 0 : parts.length} field(s)`,
    );
  }
  const sets = FIELDS.map((rule, i) => parseField(parts[i] as string, rule, field));
  const [minutes, hours, daysOfMonth, months, weekdays] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  if (weekdays.delete(7)) weekdays.add(0);
  const isStar = (part: string) => part === '*' || part === '?';
  const schedule: CronSchedule = {
    text,
    minutes,
    hours,
    daysOfMonth,
    months,
    daysOfWeek: weekdays,
    dayOfMonthStar: isStar(parts[2] as string),
    dayOfWeekStar: isStar(parts[4] as string),
  };
  // Only the day of month restricts the days: it must fall in some month the schedule names.
  if (schedule.dayOfWeekStar) {
    const reachable = [...months].some((m) => [...daysOfMonth].some((d) => d <= (MONTH_DAYS[m - 1] ?? 0)));
    if (!reachable)
      throw new WindowError(
        field,
        `never fires: no month it names has the day of month it names ("${text}")`,
      );
  }
  return schedule;
}

function parseField(part: string, rule: FieldRule, field: string): Set<number> {
  const values = new Set<number>();
  for (const item of part.split(',')) {
    const fail = (why: string): never => {
      throw new WindowError(field, `the ${rule.name} field ${JSON.stringify(item)} ${why}`);
    };
    const [range = '', stepText, extra] = item.split('/');
    if (extra !== undefined) fail('has more than one "/"');
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0)
        fail('must have a step that is a whole number above 0');
      step = Number(stepText);
    }
    let start: number;
    let end: number;
    if (range === '*' || range === '?') {
      start = rule.min;
      end = rule.max;
    } else {
      const [from = '', to, more] = range.split('-');
      if (more !== undefined) fail('has more than one "-"');
      start = fieldValue(from, rule) ?? fail(expected(rule));
      // `a/n` runs from a to the field's end.
      end =
        to === undefined
          ? stepText === undefined
            ? start
            : rule.max
          : (fieldValue(to, rule) ?? fail(expected(rule)));
      if (end < start) fail(`is a range that ends before it starts`);
    }
    for (let v = start; v <= end; v += step) values.add(v);
  }
  return values;
}

function expected(rule: FieldRule): string {
  const names = rule.names ? ` or a name ${rule.names[0]}-${rule.names.at(-1)}` : '';
  return `must be *, or values, ranges, lists and steps of numbers ${rule.min}-${rule.max}${names}`;
}

function fieldValue(text: string, rule: FieldRule): number | undefined {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n >= rule.min && n <= rule.max ? n : undefined;
  }
  const index = rule.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index < 0) return undefined;
  return index + (rule.name === 'month' ? 1 : 0);
}

/** Whether the schedule fires on this calendar day (month 1-12, weekday 0 = Sunday). */
export function firesOnDay(schedule: CronSchedule, month: number, day: number, weekday: number): boolean {
  if (!schedule.months.has(month)) return false;
  const byMonthDay = schedule.daysOfMonth.has(day);
  const byWeekday = schedule.daysOfWeek.has(weekday);
  if (schedule.dayOfMonthStar || schedule.dayOfWeekStar) return byMonthDay && byWeekday;
  return byMonthDay || byWeekday;
}
