import { describe, expect, it } from 'vitest';
import { WindowError } from './window-error.ts';
import { parseWindow, parseWindows, type WindowSpec, windowState } from './windows.ts';

const windows = (...specs: WindowSpec[]) => parseWindows(specs, 'spec.deploymentWindows');
const deny = (schedule: string, duration: string, timeZone?: string): WindowSpec => ({
  kind: 'Deny',
  schedule,
  duration,
  timeZone,
});
const allow = (schedule: string, duration: string, timeZone?: string): WindowSpec => ({
  kind: 'Allow',
  schedule,
  duration,
  timeZone,
});

interface Case {
  name: string;
  windows: WindowSpec[];
  at: string;
  allowed: boolean;
  /** The holding window's index. */
  holding?: number;
  /** The next opening: [UTC, in the holding window's zone]. */
  nextOpen?: [string, string];
}

describe('windowState', () => {
  it.each<Case>([
    { name: 'no windows: always', windows: [], at: '2026-06-10T12:00:00Z', allowed: true },
    {
      name: 'a Deny window not open',
      windows: [deny('0 22 * * *', '4h', 'Europe/Berlin')],
      at: '2026-06-10T12:00:00Z',
      allowed: true,
    },
    {
      name: 'a Deny window across midnight, before midnight',
      windows: [deny('0 22 * * *', '4h', 'Europe/Berlin')],
      at: '2026-06-10T21:30:00Z', // 23:30 CEST
      allowed: false,
      holding: 0,
      nextOpen: ['2026-06-11T00:00:00Z', '2026-06-11T02:00:00+02:00'],
    },
    {
      name: 'a Deny window across midnight, after midnight',
      windows: [deny('0 22 * * *', '4h', 'Europe/Berlin')],
      at: '2026-06-10T23:59:00Z', // 01:59 CEST
      allowed: false,
      holding: 0,
      nextOpen: ['2026-06-11T00:00:00Z', '2026-06-11T02:00:00+02:00'],
    },
    {
      name: 'a Deny window across midnight: open again at its end',
      windows: [deny('0 22 * * *', '4h', 'Europe/Berlin')],
      at: '2026-06-11T00:00:00Z',
      allowed: true,
    },
    {
      name: 'outside every Allow window: the next working day',
      windows: [allow('0 9 * * MON-FRI', '8h')],
      at: '2026-06-13T10:00:00Z', // a Saturday
      allowed: false,
      holding: 0,
      nextOpen: ['2026-06-15T09:00:00Z', '2026-06-15T09:00:00+00:00'],
    },
    {
      name: 'inside an Allow window',
      windows: [allow('0 9 * * MON-FRI', '8h')],
      at: '2026-06-15T16:59:59Z',
      allowed: true,
    },
    {
      name: 'Deny beats Allow',
      windows: [allow('0 0 * * *', '24h'), deny('0 12 * * *', '1h')],
      at: '2026-06-15T12:30:00Z',
      allowed: false,
      holding: 1,
      nextOpen: ['2026-06-15T13:00:00Z', '2026-06-15T13:00:00+00:00'],
    },
    {
      name: 'a Deny window that ends after the Allow window: the next Allow opening',
      windows: [allow('0 9 * * *', '2h'), deny('0 10 * * *', '3h')],
      at: '2026-06-15T10:30:00Z',
      allowed: false,
      holding: 1,
      nextOpen: ['2026-06-16T09:00:00Z', '2026-06-16T09:00:00+00:00'],
    },
    {
      name: 'two Allow windows: the holding one is the one that opens first',
      windows: [allow('0 20 * * *', '1h'), allow('0 6 * * *', '1h', 'America/New_York')],
      at: '2026-06-15T08:00:00Z',
      allowed: false,
      holding: 1,
      nextOpen: ['2026-06-15T10:00:00Z', '2026-06-15T06:00:00-04:00'],
    },
    {
      name: 'Berlin spring forward: a cron in the skipped hour opens at 03:30 CEST',
      windows: [allow('30 2 * * *', '1h', 'Europe/Berlin')],
      at: '2026-03-29T01:00:00Z', // 03:00 CEST
      allowed: false,
      holding: 0,
      nextOpen: ['2026-03-29T01:30:00Z', '2026-03-29T03:30:00+02:00'],
    },
    {
      name: 'Berlin spring forward: open at 04:29 CEST',
      windows: [allow('30 2 * * *', '1h', 'Europe/Berlin')],
      at: '2026-03-29T02:29:00Z',
      allowed: true,
    },
    {
      name: 'Berlin spring forward: the day before, at 02:30 CET',
      windows: [allow('30 2 * * *', '1h', 'Europe/Berlin')],
      at: '2026-03-28T01:30:00Z',
      allowed: true,
    },
    {
      name: 'Berlin fall back: a Deny window lasts its duration in elapsed time, over the repeated hour',
      windows: [deny('0 1 * * *', '3h', 'Europe/Berlin')],
      at: '2026-10-25T01:30:00Z', // the second 02:30 (CET)
      allowed: false,
      holding: 0,
      nextOpen: ['2026-10-25T02:00:00Z', '2026-10-25T03:00:00+01:00'],
    },
    {
      name: 'Berlin fall back: a cron in the repeated hour fires once, at the first',
      windows: [allow('30 2 * * *', '10m', 'Europe/Berlin')],
      at: '2026-10-25T01:35:00Z', // the second 02:35
      allowed: false,
      holding: 0,
      nextOpen: ['2026-10-26T01:30:00Z', '2026-10-26T02:30:00+01:00'],
    },
    {
      name: 'Berlin fall back: open at the first 02:35',
      windows: [allow('30 2 * * *', '10m', 'Europe/Berlin')],
      at: '2026-10-25T00:35:00Z',
      allowed: true,
    },
    {
      name: 'New York weekend freeze over the spring DST change: 48 h elapsed ends at 01:00 EDT',
      windows: [deny('0 0 * * SAT', '48h', 'America/New_York')],
      at: '2026-03-08T12:00:00Z',
      allowed: false,
      holding: 0,
      nextOpen: ['2026-03-09T05:00:00Z', '2026-03-09T01:00:00-04:00'],
    },
    {
      name: 'New York: a cron in the skipped hour',
      windows: [allow('30 2 * * *', '30m', 'America/New_York')],
      at: '2026-03-08T07:00:00Z', // 03:00 EDT
      allowed: false,
      holding: 0,
      nextOpen: ['2026-03-08T07:30:00Z', '2026-03-08T03:30:00-04:00'],
    },
    {
      name: 'New York fall back: a Deny window over the repeated hour',
      windows: [deny('0 0 * * *', '3h', 'America/New_York')],
      at: '2026-11-01T06:30:00Z', // 01:30 EST, the second
      allowed: false,
      holding: 0,
      nextOpen: ['2026-11-01T07:00:00Z', '2026-11-01T02:00:00-05:00'],
    },
    {
      name: 'a Deny window that never ends within a year: no opening known',
      windows: [deny('* * * * *', '1m')],
      at: '2026-06-15T12:00:00Z',
      allowed: false,
      holding: 0,
    },
    {
      name: 'a Deny window of one minute each minute of working hours: open at their end',
      windows: [deny('* 9-17 * * MON-FRI', '1m', 'Europe/Berlin')],
      at: '2026-06-15T08:00:00Z', // 10:00 CEST
      allowed: false,
      holding: 0,
      nextOpen: ['2026-06-15T16:00:00Z', '2026-06-15T18:00:00+02:00'],
    },
    {
      name: 'contiguous Deny openings: the opening after the last',
      windows: [deny('0 * * * *', '1h'), deny('0 0 * * *', '1h')],
      at: '2026-06-15T12:00:00Z',
      allowed: false,
      holding: 0,
    },
  ])('$name', (c) => {
    const parsed = windows(...c.windows);
    const state = windowState(parsed, Date.parse(c.at));
    expect(state.allowed).toBe(c.allowed);
    expect(state.holding === undefined ? undefined : parsed.indexOf(state.holding)).toBe(c.holding);
    expect(state.nextOpen && [state.nextOpen.utc, state.nextOpen.local]).toEqual(c.nextOpen);
  });

  it('names the windows open now', () => {
    const parsed = windows(allow('0 0 * * *', '24h'), deny('0 12 * * *', '1h'), deny('0 0 1 1 *', '1h'));
    expect(windowState(parsed, Date.parse('2026-06-15T12:30:00Z')).open.map((w) => w.field)).toEqual([
      'spec.deploymentWindows[0]',
      'spec.deploymentWindows[1]',
    ]);
  });
});

describe('parseWindow: refuses, naming the field and the rule', () => {
  it.each<[string, WindowSpec, string, string]>([
    [
      'a kind in lower case',
      { kind: 'allow', schedule: '* * * * *', duration: '1h' },
      '.kind',
      'must be Allow or Deny; got "allow"',
    ],
    ['a bad schedule', allow('0 25 * * *', '1h'), '.schedule', 'the hour field "25"'],
    [
      'a bad time zone',
      allow('0 1 * * *', '1h', 'Europe/Berlln'),
      '.timeZone',
      'must be an IANA time zone name',
    ],
    [
      'a duration that is none',
      allow('0 1 * * *', 'forever'),
      '.duration',
      'must be a duration such as 30m, 8h or 1h30m; got "forever"',
    ],
    ['a duration in days (not Go)', allow('0 1 * * *', '1d'), '.duration', 'must be a duration such as'],
    [
      'an Allow window of zero length',
      allow('0 1 * * *', '0s'),
      '.duration',
      'must be longer than 0: an Allow window of zero length never opens',
    ],
    [
      'an Allow window of 0h0m',
      allow('0 1 * * *', '0h0m'),
      '.duration',
      'must be longer than 0: an Allow window of zero length never opens',
    ],
    [
      'a Deny window of zero length',
      deny('0 1 * * *', '0m'),
      '.duration',
      'must be longer than 0: a Deny window of zero length holds nothing',
    ],
    [
      'a window longer than a year',
      deny('0 1 * * *', '9000h'),
      '.duration',
      'must be at most 8784h0m0s (366 days)',
    ],
  ])('%s', (_, spec, field, rule) => {
    let caught: unknown;
    try {
      parseWindow(spec, 'spec.deploymentWindows[3]');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(WindowError);
    expect((caught as WindowError).field).toBe(`spec.deploymentWindows[3]${field}`);
    expect((caught as Error).message).toContain(`spec.deploymentWindows[3]${field} ${rule}`);
  });

  it('defaults the time zone to UTC', () => {
    expect(parseWindow(allow('0 1 * * *', '1h'), 'w').timeZone).toBe('UTC');
  });
});
