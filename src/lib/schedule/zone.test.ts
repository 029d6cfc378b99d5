import { describe, expect, it } from 'vitest';
import { WindowError } from './window-error.ts';
import { checkTimeZone, formatInZone, formatUtc, instantOf, wallAt } from './zone.ts';

const wall = (text: string) => Date.parse(`${text}Z`);
const iso = (ms: number) => new Date(ms).toISOString();

describe('checkTimeZone', () => {
  it.each(['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Etc/GMT+1'])('takes %s', (zone) => {
    expect(checkTimeZone(zone, 'f')).toBe(zone);
  });
  it.each<[string, string]>([
    ['Mars/Olympus', '"Mars/Olympus" is not one'],
    ['Europe/Berlln', '"Europe/Berlln" is not one'],
    ['+01:00', 'got "+01:00"'],
    ['', 'got ""'],
    ['Europe/Berlin\n', 'got "Europe/Berlin\\n"'],
  ])('refuses %j, naming the field', (zone, why) => {
    let caught: unknown;
    try {
      checkTimeZone(zone, 'spec.deploymentWindows[2].timeZone');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(WindowError);
    expect((caught as Error).message).toContain(
      'spec.deploymentWindows[2].timeZone must be an IANA time zone name, like Europe/Berlin',
    );
    expect((caught as Error).message).toContain(why);
  });
});

describe('instantOf: a wall time in a zone, DST change days included', () => {
  it.each<[string, string, string, string]>([
    ['Berlin, winter', 'Europe/Berlin', '2026-01-15T12:00:00', '2026-01-15T11:00:00.000Z'],
    ['Berlin, summer', 'Europe/Berlin', '2026-07-15T12:00:00', '2026-07-15T10:00:00.000Z'],
    [
      'Berlin, spring forward: before the gap',
      'Europe/Berlin',
      '2026-03-29T01:59:00',
      '2026-03-29T00:59:00.000Z',
    ],
    // 02:00-03:00 does not exist: read with the offset before the change (RFC 5545): 02:30 is 03:30 CEST.
    [
      'Berlin, spring forward: in the gap',
      'Europe/Berlin',
      '2026-03-29T02:30:00',
      '2026-03-29T01:30:00.000Z',
    ],
    [
      'Berlin, spring forward: after the gap',
      'Europe/Berlin',
      '2026-03-29T03:00:00',
      '2026-03-29T01:00:00.000Z',
    ],
    // 02:00-03:00 happens twice: the first.
    [
      'Berlin, fall back: the repeated hour',
      'Europe/Berlin',
      '2026-10-25T02:30:00',
      '2026-10-25T00:30:00.000Z',
    ],
    ['Berlin, fall back: after it', 'Europe/Berlin', '2026-10-25T03:00:00', '2026-10-25T02:00:00.000Z'],
    [
      'New York, spring forward: in the gap',
      'America/New_York',
      '2026-03-08T02:30:00',
      '2026-03-08T07:30:00.000Z',
    ],
    [
      'New York, fall back: the repeated hour',
      'America/New_York',
      '2026-11-01T01:30:00',
      '2026-11-01T05:30:00.000Z',
    ],
    ['UTC', 'UTC', '2026-03-29T02:30:00', '2026-03-29T02:30:00.000Z'],
    ['Kolkata, a half-hour offset', 'Asia/Kolkata', '2026-03-29T00:00:00', '2026-03-28T18:30:00.000Z'],
  ])('%s', (_, zone, local, utc) => {
    expect(iso(instantOf(wall(local), zone))).toBe(utc);
  });
});

describe('wallAt and the formats', () => {
  it('reads the wall time of the second 02:30 in Berlin', () => {
    expect(wallAt(Date.parse('2026-10-25T01:30:00Z'), 'Europe/Berlin')).toEqual({
      year: 2026,
      month: 10,
      day: 25,
      hour: 2,
      minute: 30,
      second: 0,
    });
  });
  it.each<[string, string, string]>([
    ['2026-03-29T01:30:00Z', 'Europe/Berlin', '2026-03-29T03:30:00+02:00'],
    ['2026-03-29T00:30:00Z', 'Europe/Berlin', '2026-03-29T01:30:00+01:00'],
    ['2026-11-01T06:30:00Z', 'America/New_York', '2026-11-01T01:30:00-05:00'],
    ['2026-03-28T18:30:00Z', 'Asia/Kolkata', '2026-03-29T00:00:00+05:30'],
    ['2026-03-28T18:30:00Z', 'UTC', '2026-03-28T18:30:00+00:00'],
  ])('formatInZone(%s, %s) is %s', (utc, zone, want) => {
    expect(formatInZone(Date.parse(utc), zone)).toBe(want);
  });
  it('formatUtc', () => {
    expect(formatUtc(Date.parse('2026-03-28T18:30:00.250Z'))).toBe('2026-03-28T18:30:00Z');
  });
});
