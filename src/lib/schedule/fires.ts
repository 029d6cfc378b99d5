/**
 * When a cron schedule fires in a time zone: the instants of its wall times, day by day (zone.ts says
 * how a wall time a DST change skips or repeats is read). Pure arithmetic over calendar days; only a day
 * near an offset change asks Intl for each wall time.
 */
import { type CronSchedule, firesOnDay } from './cron.ts';
import { instantsOfDay, offsetAt } from './zone.ts';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** Days already worked out, per schedule (a parsed schedule lives as long as one pass uses it). */
const memo = new WeakMap<CronSchedule, Map<string, readonly number[]>>();
const MEMO_DAYS = 64;

/** The instants the schedule fires on the local day starting at wall time `dayStart` (UTC midnight form). */
function firesOn(schedule: CronSchedule, zone: string, dayStart: number): readonly number[] {
  let days = memo.get(schedule);
  if (!days) {
    days = new Map();
    memo.set(schedule, days);
  }
  const key = `${zone} ${dayStart}`;
  let fires = days.get(key);
  if (!fires) {
    if (days.size >= MEMO_DAYS) days.clear();
    fires = computeFiresOn(schedule, zone, dayStart);
    days.set(key, fires);
  }
  return fires;
}

function computeFiresOn(schedule: CronSchedule, zone: string, dayStart: number): number[] {
  const date = new Date(dayStart);
  if (!firesOnDay(schedule, date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCDay())) return [];
  const walls: number[] = [];
  for (const hour of [...schedule.hours].sort((a, b) => a - b))
    for (const minute of [...schedule.minutes].sort((a, b) => a - b))
      walls.push(dayStart + hour * 3_600_000 + minute * MINUTE_MS);
  // A change day may map wall times out of order (02:30 skipped lands after 03:00): sorted, once each.
  return [...new Set(instantsOfDay(dayStart, walls, zone))].sort((a, b) => a - b);
}

/** Midnight (in wallMs form) of the local day holding instant `ms`. */
function localDayStart(ms: number, zone: string): number {
  const wall = ms + offsetAt(ms, zone);
  return wall - (((wall % DAY_MS) + DAY_MS) % DAY_MS);
}

/** The latest fire at or before `at` and after `after`, or undefined. */
export function lastFire(
  schedule: CronSchedule,
  zone: string,
  at: number,
  after: number,
): number | undefined {
  // A fire in a skipped hour lands up to an hour later than its wall time: one day of margin each side.
  const lowest = localDayStart(after, zone) - DAY_MS;
  for (let day = localDayStart(at, zone); day >= lowest; day -= DAY_MS) {
    const found = firesOn(schedule, zone, day).filter((s) => s <= at && s > after);
    if (found.length > 0) return Math.max(...found);
  }
  return undefined;
}

/** The first fire after `at` (exclusive) and before `at + horizonMs`, or undefined. */
export function nextFire(
  schedule: CronSchedule,
  zone: string,
  at: number,
  horizonMs: number,
): number | undefined {
  const last = localDayStart(at + horizonMs, zone);
  for (let day = localDayStart(at, zone) - DAY_MS; day <= last; day += DAY_MS) {
    const found = firesOn(schedule, zone, day).filter((s) => s > at && s < at + horizonMs);
    if (found.length > 0) return Math.min(...found);
  }
  return undefined;
}

/**
 * The end of the stretch a window opened at `since` and lasting `durationMs` keeps open: openings that
 * start before the open one ends extend it (a `* 9-17 * * *` window of 1m is open from 09:00 to 18:00).
 * Undefined when it is still open at `until`.
 */
export function openUntil(
  schedule: CronSchedule,
  zone: string,
  since: number,
  durationMs: number,
  until: number,
): number | undefined {
  let end = since + durationMs;
  for (let day = localDayStart(since, zone); day <= localDayStart(until, zone) + DAY_MS; day += DAY_MS) {
    for (const fire of firesOn(schedule, zone, day)) {
      if (fire <= since) continue;
      if (fire > end) return end;
      end = Math.max(end, fire + durationMs);
    }
    if (end > until) return undefined;
  }
  return end > until ? undefined : end;
}
