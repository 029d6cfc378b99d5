/**
 * How a reconcile pass ended, and how each ending reads in conditions. Steps throw `Stall` (needs a
 * person: no retry until the object changes) or `Wait` (a dependency is not there yet: requeue later,
 * no error); anything else is transient and backs off.
 */
import {
  BadRequestError,
  ControlPlaneError,
  CredentialsConfigError,
  MalformedResponseError,
  UnauthorizedError,
  ValidationFailedError,
} from '../controlplane/errors.ts';
import { type Condition, removeCondition, setCondition } from './conditions.ts';

export class Stall extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.name = 'Stall';
    this.reason = reason;
  }
}

export class Wait extends Error {
  readonly reason: string;
  readonly retryAfterMs: number | undefined;
  constructor(reason: string, message: string, retryAfterMs?: number) {
    super(message);
    this.name = 'Wait';
    this.reason = reason;
    this.retryAfterMs = retryAfterMs;
  }
}

export type Outcome =
  | { kind: 'ready'; reason: string; message: string }
  | { kind: 'progressing'; reason: string; message: string }
  | { kind: 'waiting'; reason: string; message: string }
  | { kind: 'stalled'; reason: string; message: string }
  | { kind: 'transient'; reason: string; message: string }
  | { kind: 'paused'; reason: string; message: string };

/** The outcome an error stands for. Messages of unknown errors are kept: they never carry secrets here. */
export function outcomeOf(err: unknown): Outcome {
  if (err instanceof Stall) return { kind: 'stalled', reason: err.reason, message: err.message };
  if (err instanceof Wait) return { kind: 'waiting', reason: err.reason, message: err.message };
  if (err instanceof ValidationFailedError || err instanceof BadRequestError) {
    return { kind: 'stalled', reason: 'Rejected', message: err.message };
  }
  // Fixed in a Secret or on the service side, not in the object: keep trying at the poll interval.
  if (err instanceof UnauthorizedError || err instanceof CredentialsConfigError) {
    return { kind: 'waiting', reason: 'Unauthorized', message: err.message };
  }
  if (err instanceof MalformedResponseError) {
    return { kind: 'transient', reason: 'MalformedResponse', message: err.message };
  }
  if (err instanceof ControlPlaneError) {
    return { kind: 'transient', reason: 'ControlPlaneUnavailable', message: err.message };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { kind: 'transient', reason: 'Error', message };
}

/**
 * Stalled reasons that wait for the object to change (a new generation or a reconcile request) before
 * anything is sent again. RevisionFailed is not among them: the object keeps following the deployment,
 * so a revision the control plane starts by itself (build on push) is picked up.
 */
export const STICKY_STALL_REASONS: ReadonlySet<string> = new Set([
  'Rejected',
  'ImmutableFieldChanged',
  'AdoptionFailed',
  'AdoptionConflict',
]);

/** Conditions for an outcome. A transient error keeps Ready as it was: the last observation still holds. */
export function applyOutcome(
  conditions: Condition[],
  outcome: Outcome,
  generation: number,
  now: Date,
): Condition[] {
  const base = { observedGeneration: generation, reason: outcome.reason, message: outcome.message };
  let next = conditions;
  switch (outcome.kind) {
    case 'ready':
      next = setCondition(next, { type: 'Ready', status: 'True', ...base }, now);
      next = removeCondition(next, 'Reconciling');
      next = removeCondition(next, 'Stalled');
      break;
    case 'progressing':
    case 'waiting':
      next = setCondition(next, { type: 'Ready', status: 'False', ...base }, now);
      next = setCondition(next, { type: 'Reconciling', status: 'True', ...base }, now);
      next = removeCondition(next, 'Stalled');
      break;
    case 'stalled':
      next = setCondition(next, { type: 'Ready', status: 'False', ...base }, now);
      next = setCondition(next, { type: 'Stalled', status: 'True', ...base }, now);
      next = removeCondition(next, 'Reconciling');
      break;
    case 'transient':
      if (!next.some((c) => c.type === 'Ready')) {
        next = setCondition(next, { type: 'Ready', status: 'Unknown', ...base }, now);
      }
      next = setCondition(next, { type: 'Reconciling', status: 'True', ...base }, now);
      break;
    case 'paused':
      next = removeCondition(next, 'Reconciling');
      if (!next.some((c) => c.type === 'Ready')) {
        next = setCondition(next, { type: 'Ready', status: 'Unknown', ...base }, now);
      }
      break;
  }
  if (outcome.kind === 'paused') {
    next = setCondition(next, { type: 'Paused', status: 'True', ...base }, now);
  } else {
    next = removeCondition(next, 'Paused');
  }
  return next;
}
