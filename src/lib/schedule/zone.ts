/**
 * Wall-clock time in an IANA time zone, through Intl (the zone data Node.js carries): an instant's wall
 * time, and the instant of a wall time. A wall time a DST change skips (02:30 on the day clocks jump from
 * 02:00 to 03:00) is read with the offset before the change, as RFC 5545 and Temporal's "compatible"
 * choice do: 02:30 is 03:30 of the new offset. One that happens twice (clocks going back) is its first.
 */
import { WindowError } from './window-error.ts';

export const DEFAULT_TIME_ZONE = 'UTC';

export interface Wall {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * `zone` when it is a time zone name Intl knows (`Europe/Berlin`, `UTC`); a WindowError naming `field`
 * otherwise. A UTC offset (`+01:00`) is refused: it has no DST and names no place.
 */
export function checkTimeZone(zone: string, field: string): string {
  const rule = 'must be an IANA time zone name, like Europe/Berlin, America/New_York or UTC';
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone) || zone.length > 64)
    throw new WindowError(field, `${rule}; got ${JSON.stringify(zone.slice(0, 64))}`);
  try {
    formatter(zone);
  } catch {
    throw new WindowError(field, `${rule}; ${JSON.stringify(zone)} is not one`);
  }
  return zone;
}

/** The wall time at instant `ms` in `zone`. */
export function wallAt(ms: number, zone: string): Wall {
  const wall: Wall = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatter(zone).formatToParts(ms)) {
    if (part.type in wall) wall[part.type as keyof Wall] = Number(part.value);
  }
  return wall;
}

/** The wall time as if it were UTC, in milliseconds: the arithmetic form of a wall time. */
export function wallMs(wall: Wall): number {
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
}

/** The zone's offset from UTC at instant `ms`, in milliseconds (+3600000 for CET). */
export function offsetAt(ms: number, zone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallMs(wallAt(whole, zone)) - whole;
}

/** The instant of a wall time (as wallMs gives it) in `zone`; see the module's comment for DST. */
export function instantOf(wall: number, zone: string): number {
  const before = offsetAt(wall - DAY_MS, zone);
  const after = offsetAt(wall + DAY_MS, zone);
  const candidates = [wall - before, wall - after].filter((t) => offsetAt(t, zone) === wall - t);
  if (candidates.length === 0) return wall - before; // skipped: the offset before the change
  return Math.min(...candidates);
}

/**
 * The instants of wall times `walls` (sorted, within one local day) in `zone`. A day with no offset
 * change near it is shifted by one offset; a change day goes one wall time at a time.
 */
export function instantsOfDay(dayStart: number, walls: readonly number[], zone: string): number[] {
  const before = offsetAt(dayStart - DAY_MS, zone);
  if (before === offsetAt(dayStart + 2 * DAY_MS, zone)) return walls.map((w) => w - before);
  return walls.map((w) => instantOf(w, zone));
}

/** RFC 3339 with the zone's offset at that instant: 2026-03-29T03:30:00+02:00. */
export function formatInZone(ms: number, zone: string): string {
  const offset = Math.round(offsetAt(ms, zone) / 60_000);
  const local = new Date(Math.floor(ms / 1000) * 1000 + offset * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${local}${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** RFC 3339 in UTC, to the second. */
export function formatUtc(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}
