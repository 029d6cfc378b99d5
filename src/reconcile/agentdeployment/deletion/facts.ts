/**
 * The facts deleting one AgentDeployment decides on: what the object, its status and its policy say
 * (deletionFactsOf, the controller's finalize step's and `--prune`'s one way to build them), and what has
 * been read or done so far.
 */
import type {
  AgentDeploymentSpec,
  AgentDeploymentStatus,
  DeletionPolicy,
} from '../../../api/agentdeployment.ts';
import { FINALIZER, type Reason } from '../../../api/names.ts';
import type { Deployment } from '../../../controlplane/schemas.ts';
import { DEFAULT_TIMEOUTS } from '../../../controlplane/timeouts.ts';
import { deletionPolicyOf, isObserveOnly } from '../management.ts';
import type { NameLookup, ReadById } from '../ownership.ts';
import type { PolicyWindows } from '../policy-windows.ts';
import { closedWindowOf } from '../window-fact.ts';

/**
 * How long after an unanswered create a deleted object keeps its finalizer while the name shows nothing:
 * the POST may still commit after the client gave up on it (twice its deadline), and the object must
 * still be there to delete what it made.
 */
export const LATE_COMMIT_WINDOW_MS = 2 * DEFAULT_TIMEOUTS.totalMs;

/**
 * What the credentials read gives (the AgentDeployment chain's reads and derivations:
 * agentdeployment/deletion-credentials.ts): the tenant they reach and how other objects' claims weigh,
 * or why there are none (the Secrets past their budget, the credentials missing or not allowed).
 */
export type DeletionCredentials =
  | {
      ok: true;
      /** The tenant (and base URL) digest of the current credentials. */
      tenant: string | undefined;
      /** The claim of another object that wins over this object's (claims.ts), if any. */
      conflict?: { reason: string; message: string } | undefined;
      /** Another object that records or adopts this id, if any. */
      claimedBy(id: string): string | undefined;
    }
  | { ok: false; kind: 'wait' | 'stall'; reason: Reason; message: string };

export interface DeletionFacts {
  /** The deployment name (spec.name, or metadata.name). */
  name: string;
  /** The controller's finalizer is on the object. */
  hasFinalizer: boolean;
  /** deletionPolicyOf(spec): Orphan for an observe-only object, whatever spec.deletionPolicy says. */
  policy: DeletionPolicy;
  observeOnly: boolean;
  /** spec.deleteTracingProject. */
  deleteTracingProject: boolean;
  /** status.deploymentId, or the id the create guard took. */
  recordedId?: string | undefined;
  /** status.credentialsDigest. */
  recordedTenant?: string | undefined;
  /** status.createPendingSince. */
  pendingSince?: string | undefined;
  /** Why the object may not use the default credentials; undefined when it may (or names its own). */
  defaultCredentialsRefused?: string | undefined;
  /** Its deployment windows (its own, its policies') are closed: what holds the DELETE, and when to look again. */
  windowClosed?: { message: string; retryAfterMs: number } | undefined;
  now: Date;
  /** What has been read or done so far. */
  credentials?: DeletionCredentials;
  byName?: NameLookup;
  /** The recorded deployment before anything was sent. */
  before?: ReadById;
  /** The DELETE was sent (a 404 answer counts: it is gone). */
  sent?: boolean;
  /** The recorded deployment read again after the DELETE (or while the platform deletes it). */
  after?: ReadById;
}

/** The part of an object the deletion decision reads before anything else. */
export interface DeletingObject {
  metadata: { finalizers?: readonly string[] | undefined };
  spec: AgentDeploymentSpec;
  status: Pick<AgentDeploymentStatus, 'deploymentId' | 'credentialsDigest' | 'createPendingSince'>;
}

/** What the object, its status and its policy say, before anything is read: the controller's and the plan's. */
export function deletionFactsOf(
  obj: DeletingObject,
  name: string,
  now: Date,
  defaultCredentialsRefused?: string,
  /** The DeploymentWindowPolicies selecting it (their windows hold the DELETE too), or why not known. */
  policies: readonly PolicyWindows[] | { unknown: string } = [],
): DeletionFacts {
  const { spec, status } = obj;
  return {
    name,
    hasFinalizer: obj.metadata.finalizers?.includes(FINALIZER) ?? false,
    policy: deletionPolicyOf(spec),
    observeOnly: isObserveOnly(spec),
    deleteTracingProject: spec.deleteTracingProject ?? false,
    recordedId: status.deploymentId,
    recordedTenant: status.credentialsDigest,
    pendingSince: status.createPendingSince,
    defaultCredentialsRefused,
    windowClosed: closedWindowOf(spec.deploymentWindows, policies, now),
    now,
  };
}

/** The credentials, once the credentials gate let the chain go on (they resolved). */
export function resolvedCredentials(f: DeletionFacts): Extract<DeletionCredentials, { ok: true }> {
  if (!f.credentials?.ok) throw new Error('a deletion gate read the credentials before they resolved');
  return f.credentials;
}

/** The recorded id, once the ownsNothing gate let the chain go on (there is one). */
export function recordedIdOf(f: DeletionFacts): string {
  if (!f.recordedId) throw new Error('a deletion gate read the recorded id before there was one');
  return f.recordedId;
}

/** The recorded deployment as read before anything was sent, once the recordedGone gate found it live. */
export function recordedBefore(f: DeletionFacts): Deployment {
  if (f.before === undefined || f.before === 'missing')
    throw new Error('a deletion gate read the recorded deployment before it was found live');
  return f.before;
}
