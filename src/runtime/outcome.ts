/**
 * How a reconcile pass ends. A step either lets the pass go on or stops it with an Outcome; a step that
 * cannot go on may also throw `Stall` (needs a person: no retry until the object changes) or `Wait` (a
 * dependency is not there yet: requeue later, no error). Any other error is transient and backs off,
 * unless a kind's classifier says what it stands for.
 */
import type { Reason } from '../api/names.ts';

export type OutcomeKind =
  | 'ready'
  | 'progressing'
  | 'waiting'
  | 'stalled'
  | 'transient'
  | 'paused'
  | 'deleted';

export interface Outcome {
  kind: OutcomeKind;
  reason: Reason;
  message: string;
}

export class Stall extends Error {
  readonly reason: Reason;
  constructor(reason: Reason, message: string) {
    super(message);
    this.name = 'Stall';
    this.reason = reason;
  }
}

export class Wait extends Error {
  readonly reason: Reason;
  readonly retryAfterMs: number | undefined;
  constructor(reason: Reason, message: string, retryAfterMs?: number) {
    super(message);
    this.name = 'Wait';
    this.reason = reason;
    this.retryAfterMs = retryAfterMs;
  }
}

/** A transient failure with a reason of its own (e.g. DeleteFailed): the pass backs off and retries. */
export class Retry extends Error {
  readonly reason: Reason;
  readonly retryAfterMs: number | undefined;
  constructor(reason: Reason, message: string, retryAfterMs?: number) {
    super(message);
    this.name = 'Retry';
    this.reason = reason;
    this.retryAfterMs = retryAfterMs;
  }
}

/** What an error a kind knows stands for; undefined for errors it does not know. */
export type ErrorClassifier = (err: unknown) => Outcome | undefined;

/** The outcome an error stands for. Messages of unknown errors are kept: they never carry secrets here. */
export function outcomeOf(err: unknown, classify?: ErrorClassifier): Outcome {
  if (err instanceof Stall) return { kind: 'stalled', reason: err.reason, message: err.message };
  if (err instanceof Wait) return { kind: 'waiting', reason: err.reason, message: err.message };
  if (err instanceof Retry) return { kind: 'transient', reason: err.reason, message: err.message };
  const known = classify?.(err);
  if (known) return known;
  const message = err instanceof Error ? err.message : String(err);
  return { kind: 'transient', reason: 'Error', message };
}

/** A pause the failed call was asked to take (a 429's Retry-After, a Wait's delay), when it carries one. */
export function retryAfterOf(err: unknown): number | undefined {
  const ms = (err as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms : undefined;
}
