import { describe, expect, it } from 'vitest';
import type { VerificationStatus } from '../api/verification.ts';
import { backoffMs, type Decision, JOIN_SLICE_MS, type MachineInput, nextStep } from './machine.ts';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const base = { revisionId: 'rev-1', specDigest: 'd1' };
const running = (startedMs: number, webhook = false): VerificationStatus => ({
  ...base,
  failures: 0,
  current: { runId: 'run', threadId: 'thread', startedAt: at(startedMs), ...(webhook ? { webhook } : {}) },
});
const completed = (
  outcome: 'Succeeded' | 'Failed',
  completedMs: number,
  failures = 0,
): VerificationStatus => ({
  ...base,
  failures,
  last: { runId: 'run', threadId: 'thread', startedAt: at(0), completedAt: at(completedMs), outcome },
});

const input = (record: VerificationStatus | undefined, nowMs: number, extra: Partial<MachineInput> = {}) => ({
  record,
  ...base,
  nowMs: T0 + nowMs,
  timeoutMs: 60_000,
  intervalMs: 600_000,
  backoffBaseMs: 5_000,
  delivered: false,
  ...extra,
});

describe('nextStep', () => {
  it.each<[string, MachineInput, Decision]>([
    ['no record: start afresh', input(undefined, 0), { action: 'start', reset: true }],
    [
      'a new revision resets',
      input({ ...completed('Succeeded', 0), revisionId: 'rev-0' }, 1_000),
      { action: 'start', reset: true },
    ],
    [
      'a changed verification spec resets',
      input({ ...running(0), specDigest: 'd0' }, 1_000),
      { action: 'start', reset: true },
    ],
    [
      'a run in flight is joined for one slice',
      input(running(0), 1_000),
      { action: 'join', waitMs: JOIN_SLICE_MS },
    ],
    ['the join slice ends at the timeout', input(running(0), 58_000), { action: 'join', waitMs: 2_000 }],
    ['past the timeout: time out', input(running(0), 60_000), { action: 'time-out' }],
    [
      'a webhook delivery completes it',
      input(running(0, true), 1_000, { delivered: true }),
      { action: 'complete-from-webhook' },
    ],
    [
      'a delivery wins over the timeout',
      input(running(0, true), 90_000, { delivered: true }),
      { action: 'complete-from-webhook' },
    ],
    [
      'webhook runs wait for the delivery first',
      input(running(0, true), 10_000),
      { action: 'await-webhook', afterMs: 20_000 },
    ],
    [
      'after half the timeout, join is the fallback',
      input(running(0, true), 30_000),
      { action: 'join', waitMs: JOIN_SLICE_MS },
    ],
    [
      'verified: idle until the interval',
      input(completed('Succeeded', 0), 100_000),
      { action: 'idle', afterMs: 500_000 },
    ],
    [
      'verified and the interval passed: verify again',
      input(completed('Succeeded', 0), 600_000),
      { action: 'start', reset: false },
    ],
    [
      'failed once: retry after the base backoff',
      input(completed('Failed', 0, 1), 1_000),
      { action: 'idle', afterMs: 4_000 },
    ],
    [
      'failed three times: the backoff doubled twice',
      input(completed('Failed', 0, 3), 1_000),
      { action: 'idle', afterMs: 19_000 },
    ],
    [
      'failed and the backoff passed: retry',
      input(completed('Failed', 0, 1), 5_000),
      { action: 'start', reset: false },
    ],
  ])('%s', (_name, given, expected) => {
    expect(nextStep(given)).toEqual(expected);
  });
});

describe('backoffMs', () => {
  it.each([
    [1, 5_000, 600_000, 5_000],
    [2, 5_000, 600_000, 10_000],
    [4, 5_000, 600_000, 40_000],
    [20, 5_000, 600_000, 300_000],
    [20, 5_000, 60_000, 60_000],
    [20, 5_000, 1_000, 5_000],
  ])('failure %i with base %i and interval %i waits %i', (failures, baseMs, intervalMs, expected) => {
    expect(backoffMs(failures, baseMs, intervalMs)).toBe(expected);
  });
});
