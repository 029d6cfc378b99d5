/**
 * The verification state machine, pure: from the recorded verification, the revision and the clock, what
 * this pass does. A run is started in one pass and completed in later ones (by its webhook delivery or by a
 * bounded join), so no pass holds a worker for the whole timeout.
 */
import type { VerificationStatus } from '../api/verification.ts';

/** A join holds a worker at most this long; a longer run is joined again in a later pass. */
export const JOIN_SLICE_MS = 5_000;
/** Between join slices, so other objects get the worker. */
export const JOIN_REQUEUE_MS = 500;
/** The retry backoff never grows beyond this (nor beyond the interval). */
export const MAX_BACKOFF_MS = 5 * 60_000;

export interface MachineInput {
  record: VerificationStatus | undefined;
  revisionId: string;
  specDigest: string;
  nowMs: number;
  timeoutMs: number;
  intervalMs: number;
  backoffBaseMs: number;
  /** The webhook delivery of the run in flight, when one arrived. */
  delivered: boolean;
}

export type Decision =
  /** Start a verification; `reset` drops the record first (new revision or changed spec). */
  | { action: 'start'; reset: boolean }
  /** The run in flight reported through the webhook. */
  | { action: 'complete-from-webhook' }
  /** The run in flight exceeded the timeout. */
  | { action: 'time-out' }
  /** Wait for the webhook until `afterMs`; join takes over after half the timeout. */
  | { action: 'await-webhook'; afterMs: number }
  /** Join the run in flight for at most `waitMs`. */
  | { action: 'join'; waitMs: number }
  /** Nothing to do until `afterMs` from now. */
  | { action: 'idle'; afterMs: number };

/** Delay before retry number `failures` (1, 2, ...): base, doubling, capped by the interval and 5m. */
export function backoffMs(failures: number, baseMs: number, intervalMs: number): number {
  const cap = Math.max(baseMs, Math.min(intervalMs, MAX_BACKOFF_MS));
  return Math.min(cap, baseMs * 2 ** Math.max(0, failures - 1));
}

/** When the next verification is due after the last completed one (undefined: none completed). */
export function nextDueMs(
  record: VerificationStatus,
  intervalMs: number,
  backoffBaseMs: number,
): number | undefined {
  const last = record.last;
  if (!last) return undefined;
  const completed = Date.parse(last.completedAt);
  return last.outcome === 'Succeeded'
    ? completed + intervalMs
    : completed + backoffMs(record.failures ?? 1, backoffBaseMs, intervalMs);
}

export function nextStep(input: MachineInput): Decision {
  const { record, nowMs } = input;
  if (!record || record.revisionId !== input.revisionId || record.specDigest !== input.specDigest) {
    return { action: 'start', reset: true };
  }
  const current = record.current;
  if (current) {
    if (input.delivered) return { action: 'complete-from-webhook' };
    const elapsed = nowMs - Date.parse(current.startedAt);
    const remaining = input.timeoutMs - elapsed;
    if (remaining <= 0) return { action: 'time-out' };
    if (current.webhook) {
      const joinFrom = Math.ceil(input.timeoutMs / 2) - elapsed;
      if (joinFrom > 0) return { action: 'await-webhook', afterMs: Math.min(joinFrom, remaining) };
    }
    return { action: 'join', waitMs: Math.min(JOIN_SLICE_MS, remaining) };
  }
  const due = nextDueMs(record, input.intervalMs, input.backoffBaseMs);
  if (due === undefined || due <= nowMs) return { action: 'start', reset: false };
  return { action: 'idle', afterMs: due - nowMs };
}
