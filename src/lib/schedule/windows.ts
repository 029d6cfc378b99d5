/**
 * Deployment windows: `{kind: Allow|Deny, schedule, duration, timeZone}`. A window opens each time its
 * cron schedule fires (wall time in its zone) and stays open for its duration (elapsed time, so a
 * window across a DST change lasts as long as it says). The rule, as Argo CD's sync windows: a change is
 * allowed when no Deny window is active and, if any Allow window exists, inside one of them; Deny beats
 * Allow. Pure: the caller gives the instant.
 */
import { formatDuration, parseDuration } from '../duration.ts';
import { type CronSchedule, parseCron } from './cron.ts';
import { lastFire, nextFire, openUntil } from './fires.ts';
import { WindowError } from './window-error.ts';
import { checkTimeZone, DEFAULT_TIME_ZONE, formatInZone, formatUtc } from './zone.ts';

export const WINDOW_KINDS = ['Allow', 'Deny'] as const;
export type WindowKind = (typeof WINDOW_KINDS)[number];

/** A window as the object states it. */
export interface WindowSpec {
  kind: string;
  schedule: string;
  duration: string;
  timeZone?: string | undefined;
}

export interface DeploymentWindow {
  /** Its path in the object, e.g. spec.deploymentWindows[1]: how messages name it. */
  field: string;
  kind: WindowKind;
  schedule: CronSchedule;
  durationMs: number;
  timeZone: string;
}

/** Bounds the look back for an open window: a window longer than a year is a setting, not a window. */
export const MAX_WINDOW_MS = 366 * 86_400_000;
/** How far ahead the next opening is looked for. */
export const NEXT_OPEN_HORIZON_MS = 366 * 86_400_000;
/** Steps of the next-opening search (each a window's opening or end); past it the opening is "unknown". */
const MAX_STEPS = 1_000;
const DURATION_PATTERN = /^(\d+(\.\d+)?(ms|s|m|h))+$/;

/** Checks one window; a WindowError names the field (`${field}.schedule`, ...) and the rule. */
export function parseWindow(spec: WindowSpec, field: string): DeploymentWindow {
  if (!(WINDOW_KINDS as readonly string[]).includes(spec.kind))
    throw new WindowError(
      `${field}.kind`,
      `must be Allow or Deny; got ${JSON.stringify(spec.kind.slice(0, 32))}`,
    );
  const kind = spec.kind as WindowKind;
  const timeZone = checkTimeZone(spec.timeZone ?? DEFAULT_TIME_ZONE, `${field}.timeZone`);
  const schedule = parseCron(spec.schedule, `${field}.schedule`);
  const durationField = `${field}.duration`;
  const duration = spec.duration.trim();
  if (!DURATION_PATTERN.test(duration))
    throw new WindowError(
      durationField,
      `must be a duration such as 30m, 8h or 1h30m; got ${JSON.stringify(duration.slice(0, 32))}`,
    );
  const durationMs = parseDuration(duration) ?? 0;
  if (durationMs === 0)
    throw new WindowError(
      durationField,
      kind === 'Allow'
        ? 'must be longer than 0: an Allow window of zero length never opens'
        : 'must be longer than 0: a Deny window of zero length holds nothing',
    );
  if (durationMs > MAX_WINDOW_MS)
    throw new WindowError(durationField, `must be at most ${formatDuration(MAX_WINDOW_MS)} (366 days)`);
  return { field, kind, schedule, durationMs, timeZone };
}

/** Checks a list of windows; `field` is the list's path (spec.deploymentWindows). */
export function parseWindows(specs: readonly WindowSpec[], field: string): DeploymentWindow[] {
  return specs.map((spec, i) => parseWindow(spec, `${field}[${i}]`));
}

/** Since when the window is open at `at` (its latest opening that still lasts), or undefined if closed. */
export function openedAt(window: DeploymentWindow, at: number): number | undefined {
  return lastFire(window.schedule, window.timeZone, at, at - window.durationMs);
}

export interface Opening {
  /** Milliseconds since the epoch. */
  at: number;
  /** RFC 3339 in UTC. */
  utc: string;
  /** RFC 3339 with the offset of `timeZone` at that instant. */
  local: string;
  timeZone: string;
}

export interface WindowState {
  allowed: boolean;
  /** The windows open now. */
  open: DeploymentWindow[];
  /**
   * What holds a change now: an open Deny window (the first listed), else, outside every Allow window,
   * the Allow window that opens first. Undefined when a change is allowed.
   */
  holding: DeploymentWindow | undefined;
  /** When a change is next allowed (in the holding window's zone); undefined when allowed now or not within a year. */
  nextOpen: Opening | undefined;
}

function allowedAmong(windows: readonly DeploymentWindow[], open: readonly DeploymentWindow[]): boolean {
  if (open.some((w) => w.kind === 'Deny')) return false;
  return !windows.some((w) => w.kind === 'Allow') || open.some((w) => w.kind === 'Allow');
}

const openAt = (windows: readonly DeploymentWindow[], at: number) =>
  windows.filter((w) => openedAt(w, at) !== undefined);

/** Whether a change may be made at `now`, what holds it, and when it may be next. */
export function windowState(windows: readonly DeploymentWindow[], now: number): WindowState {
  const open = openAt(windows, now);
  if (allowedAmong(windows, open)) return { allowed: true, open, holding: undefined, nextOpen: undefined };
  const deny = open.find((w) => w.kind === 'Deny');
  const holding =
    deny ??
    firstToOpen(
      windows.filter((w) => w.kind === 'Allow'),
      now,
    );
  const at = nextAllowed(windows, now);
  const zone = holding?.timeZone ?? DEFAULT_TIME_ZONE;
  return {
    allowed: false,
    open,
    holding,
    nextOpen:
      at === undefined
        ? undefined
        : { at, utc: formatUtc(at), local: formatInZone(at, zone), timeZone: zone },
  };
}

function firstToOpen(allows: readonly DeploymentWindow[], now: number): DeploymentWindow | undefined {
  let first: { window: DeploymentWindow; at: number } | undefined;
  for (const window of allows) {
    const at = nextFire(window.schedule, window.timeZone, now, NEXT_OPEN_HORIZON_MS);
    if (at !== undefined && (!first || at < first.at)) first = { window, at };
  }
  return first?.window ?? allows[0];
}

/**
 * The first instant after `now` at which a change is allowed. The answer changes only when a Deny
 * window ends or an Allow window opens, so the search steps from one such instant to the next.
 */
function nextAllowed(windows: readonly DeploymentWindow[], now: number): number | undefined {
  const horizon = now + NEXT_OPEN_HORIZON_MS;
  let at = now;
  for (let step = 0; step < MAX_STEPS && at < horizon; step++) {
    let next = Number.POSITIVE_INFINITY;
    for (const window of windows) {
      const since = openedAt(window, at);
      if (since !== undefined && window.kind === 'Deny') {
        const end = openUntil(window.schedule, window.timeZone, since, window.durationMs, horizon);
        if (end === undefined) return undefined;
        next = Math.min(next, end);
      }
      if (since === undefined && window.kind === 'Allow') {
        const opens = nextFire(window.schedule, window.timeZone, at, horizon - at);
        if (opens !== undefined) next = Math.min(next, opens);
      }
    }
    if (!Number.isFinite(next)) return undefined;
    at = next;
    if (allowedAmong(windows, openAt(windows, at))) return at;
  }
  return undefined;
}
