/**
 * What the deletion chain decides, one discriminant (`kind`). `read` is gathered; `take` and `delete`
 * are bookkeeping (the port acts, the facts advance: chain.ts); the others are final: what the finalize
 * step does (and `--prune` prints).
 */
import type { EventReason, Reason } from '../../../api/names.ts';
import type { Deployment } from '../../../controlplane/schemas.ts';
import type { DeletionFacts } from './facts.ts';

/** A message for an event: what this decision did. */
export interface DeletionEvent {
  reason: EventReason | typeof Reason.Deleting;
  message: string;
}

export type DeletionRead = 'credentials' | 'byName' | 'before' | 'after';

export type DeletionVerdict =
  /** Read this, put it in the facts, and ask again. */
  | { kind: 'read'; read: DeletionRead }
  /** The create guard proves this deployment is this object's: record it (event), and ask again. */
  | { kind: 'take'; deployment: Deployment; event: DeletionEvent }
  /** Send DELETE for this id, set `sent`, and ask again. */
  | { kind: 'delete'; id: string; deleteTracingProject: boolean }
  /**
   * The finalizer stays and the object is looked at again, `reason` saying why (the controller's
   * condition, the plan's line): the platform is deleting `deployment` (`event` when the DELETE went this
   * pass), a create without an answer may still commit (until `retryAfterMs`), a deployment window is
   * closed (until `retryAfterMs`), the default credentials
   * are not allowed now (the administrator's scope, or the policy, may change), or the credentials are
   * not there yet.
   */
  | {
      kind: 'wait';
      why: 'platformDeleting';
      reason: 'Deleting';
      deployment: Deployment;
      event?: DeletionEvent | undefined;
    }
  | { kind: 'wait'; why: 'lateCommit'; reason: 'Deleting'; message: string; retryAfterMs: number }
  | { kind: 'wait'; why: 'window'; reason: 'WindowClosed'; message: string; retryAfterMs: number }
  | {
      kind: 'wait';
      why: 'defaultCredentialsNotAllowed';
      reason: 'DefaultCredentialsNotAllowed';
      message: string;
    }
  | { kind: 'wait'; why: 'credentials'; reason: Reason; message: string }
  /** A person must settle it: nothing is deleted and the finalizer stays. */
  | { kind: 'stall'; reason: Reason; message: string }
  /**
   * Let the object go: take the finalizer off (unless it has none) and release its credentials Secret.
   * `deleted`: the deployment it owned is gone; `orphaned`: left on the platform, or it owned none.
   */
  | {
      kind: 'release';
      how: 'deleted' | 'orphaned' | 'gone' | 'noFinalizer';
      /** The deployment left on the control plane, when there is one. */
      leftId?: string | undefined;
      event?: DeletionEvent | undefined;
    };

/** The bookkeeping a port that deletes acts on (a plan's port takes only `take`: `delete` is printed). */
export type DeletionBookkeeping = Extract<DeletionVerdict, { kind: 'take' | 'delete' }>;

/** A verdict that ends the chain for a port that deletes: what its caller does with it. */
export type FinalDeletionVerdict = Exclude<DeletionVerdict, { kind: 'read' | 'take' | 'delete' }>;

export type DeletionGate = (facts: DeletionFacts) => DeletionVerdict | undefined;
