/**
 * What deleting an AgentDeployment does next: one pure decision, shared by the controller's finalize step
 * (controllers/agentdeployment/finalize.ts) and the plan (plan/prune.ts), so the two cannot drift apart.
 * Like the ownership verdict (ownership.ts) it is given what has been read so far and either asks for the
 * next read or action, or decides:
 *
 * 1. Not being deleted: nothing. Deleted without the finalizer: nothing to do but let it go.
 * 2. Never allowed the default credentials and owning no recorded id: it made nothing, release.
 * 3. deletionPolicy Orphan (an observe-only object always is): release, leaving the deployment.
 * 4. With a recorded id under default credentials it may no longer use: wait (DefaultCredentialsNotAllowed,
 *    looked at again: the administrator's scope, or the policy, may change; a wait, not a transient
 *    error, so what the object showed before, a held stall included, gives way to it).
 * 5. The credentials are read. A recorded id another object holds and wins (AlreadyManaged: a copied
 *    status) is that object's: release without deleting.
 * 6. A create without an answer: the deployments of the name are looked up; one the create guard proves
 *    this object made is taken (and deleted); none yet: the finalizer waits out a late commit
 *    (LATE_COMMIT_WINDOW_MS after the create was sent).
 * 7. Owning no id: release, nothing deleted. Otherwise the recorded id is read: missing under other
 *    credentials is CredentialsChanged (a person must settle it); missing, gone, release; live, DELETE
 *    by that id only (once: one the platform is deleting is not asked again); then read again: gone is
 *    deleted, still there waits while the platform deletes.
 */
import type { AgentDeploymentSpec, AgentDeploymentStatus, DeletionPolicy } from '../api/agentdeployment.ts';
import { EventReason, FINALIZER, Reason } from '../api/names.ts';
import { isDeleting } from '../controlplane/progress.ts';
import type { Deployment } from '../controlplane/schemas.ts';
import { DEFAULT_TIMEOUTS } from '../controlplane/timeouts.ts';
import { judgeFound } from './guard.ts';
import { deletionPolicyOf, isObserveOnly } from './management.ts';
import { credentialsChangedMessage, type NameLookup, type ReadById } from './ownership.ts';

/**
 * How long after an unanswered create a deleted object keeps its finalizer while the name shows nothing:
 * the POST may still commit after the client gave up on it (twice its deadline), and the object must
 * still be there to delete what it made.
 */
export const LATE_COMMIT_WINDOW_MS = 2 * DEFAULT_TIMEOUTS.totalMs;

/** What the credentials read gives: the tenant they reach and how other objects' claims weigh. */
export interface DeletionCredentials {
  /** The tenant (and base URL) digest of the current credentials. */
  tenant: string | undefined;
  /** The claim of another object that wins over this object's (claims.ts), if any. */
  conflict?: { reason: string; message: string } | undefined;
  /** Another object that records or adopts this id, if any. */
  claimedBy(id: string): string | undefined;
}

export interface DeletionFacts {
  /** The deployment name (spec.name, or metadata.name). */
  name: string;
  /** metadata.deletionTimestamp is set. */
  deleting: boolean;
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
  metadata: { deletionTimestamp?: unknown; finalizers?: readonly string[] | undefined };
  spec: AgentDeploymentSpec;
  status: Pick<AgentDeploymentStatus, 'deploymentId' | 'credentialsDigest' | 'createPendingSince'>;
}

/** What the object, its status and its policy say, before anything is read: the controller's and the plan's. */
export function deletionFactsOf(
  obj: DeletingObject,
  name: string,
  now: Date,
  defaultCredentialsRefused?: string,
): DeletionFacts {
  const { spec, status } = obj;
  return {
    name,
    deleting: !!obj.metadata.deletionTimestamp,
    hasFinalizer: obj.metadata.finalizers?.includes(FINALIZER) ?? false,
    policy: deletionPolicyOf(spec),
    observeOnly: isObserveOnly(spec),
    deleteTracingProject: spec.deleteTracingProject ?? false,
    recordedId: status.deploymentId,
    recordedTenant: status.credentialsDigest,
    pendingSince: status.createPendingSince,
    defaultCredentialsRefused,
    now,
  };
}

/** A message for an event: what this decision did. */
export interface DeletionEvent {
  reason: EventReason | typeof Reason.Deleting;
  message: string;
}

export type DeletionVerdict =
  /** Not being deleted: the other steps run. */
  | { kind: 'none' }
  /** Read this, put it in the facts, and ask again. */
  | { kind: 'read'; read: 'credentials' | 'byName' | 'before' | 'after' }
  /** The create guard proves this deployment is this object's: record it (event), and ask again. */
  | { kind: 'take'; deployment: Deployment; event: DeletionEvent }
  /** Send DELETE for this id, set `sent`, and ask again. */
  | { kind: 'delete'; id: string; deleteTracingProject: boolean }
  /**
   * The finalizer stays and the object is looked at again, `reason` saying why (the controller's
   * condition, the plan's line): the platform is deleting `deployment` (`event` when the DELETE went this
   * pass), a create without an answer may still commit (until `retryAfterMs`), or the default
   * credentials are not allowed now (the administrator's scope, or the policy, may change).
   */
  | {
      kind: 'wait';
      why: 'platformDeleting';
      reason: 'Deleting';
      deployment: Deployment;
      event?: DeletionEvent | undefined;
    }
  | { kind: 'wait'; why: 'lateCommit'; reason: 'Deleting'; message: string; retryAfterMs: number }
  | {
      kind: 'wait';
      why: 'defaultCredentialsNotAllowed';
      reason: 'DefaultCredentialsNotAllowed';
      message: string;
    }
  /** A person must settle it: nothing is deleted and the finalizer stays. */
  | { kind: 'stall'; reason: 'CredentialsChanged'; message: string }
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

export function deletion(f: DeletionFacts): DeletionVerdict {
  if (!f.deleting) return { kind: 'none' };
  if (!f.hasFinalizer) return { kind: 'release', how: 'noFinalizer' };
  if (f.defaultCredentialsRefused && !f.recordedId) {
    // Never allowed to call the control plane, so it made nothing: nothing to delete.
    return { kind: 'release', how: 'orphaned' };
  }
  if (f.policy === 'Orphan') {
    return {
      kind: 'release',
      how: 'orphaned',
      leftId: f.recordedId,
      event: {
        reason: EventReason.Orphaned,
        message: `left deployment ${f.recordedId ?? '(none)'} on the control plane${f.observeOnly ? ' (observe-only)' : ''}`,
      },
    };
  }
  if (f.defaultCredentialsRefused) {
    return {
      kind: 'wait',
      why: 'defaultCredentialsNotAllowed',
      reason: 'DefaultCredentialsNotAllowed',
      message: `cannot delete deployment ${f.recordedId}: ${f.defaultCredentialsRefused}; or set spec.deletionPolicy to Orphan to release the object`,
    };
  }
  const creds = f.credentials;
  if (!creds) return { kind: 'read', read: 'credentials' };
  if (f.recordedId && creds.conflict?.reason === 'AlreadyManaged') {
    // A copied status: the deployment is the other object's to delete.
    return {
      kind: 'release',
      how: 'orphaned',
      leftId: f.recordedId,
      event: { reason: EventReason.Orphaned, message: creds.conflict.message },
    };
  }
  if (!f.recordedId && f.pendingSince) {
    const verdict = pendingCreate(f, f.pendingSince, creds);
    if (verdict) return verdict;
  }
  if (!f.recordedId) {
    return {
      kind: 'release',
      how: 'orphaned',
      event: {
        reason: EventReason.Orphaned,
        message: 'this object owns no deployment on the control plane: nothing deleted',
      },
    };
  }
  return deleteRecorded(f, f.recordedId, creds);
}

/** A create without an answer: what it may have made is looked for, and waited for a while. */
function pendingCreate(
  f: DeletionFacts,
  pendingSince: string,
  creds: DeletionCredentials,
): DeletionVerdict | undefined {
  if (!f.byName) return { kind: 'read', read: 'byName' };
  const { live } = f.byName;
  if (live) {
    const verdict = judgeFound({ found: live, pendingSince, claimedBy: creds.claimedBy(live.id) });
    // Made before the mark, or claimed by another object: not this object's, nothing to delete.
    if (!verdict.take) return undefined;
    return { kind: 'take', deployment: live, event: { reason: EventReason.Found, message: verdict.message } };
  }
  const until = Date.parse(pendingSince) + LATE_COMMIT_WINDOW_MS;
  const left = until - f.now.getTime();
  if (!(left > 0)) return undefined;
  return {
    kind: 'wait',
    why: 'lateCommit',
    reason: 'Deleting',
    message: `a create sent at ${pendingSince} got no answer and nothing named ${f.name} exists yet; it may still commit, so the finalizer stays until ${new Date(until).toISOString()} and the name is looked up again then (set spec.deletionPolicy to Orphan to release it now)`,
    retryAfterMs: left,
  };
}

/** The recorded id: read, deleted once, read again. */
function deleteRecorded(f: DeletionFacts, id: string, creds: DeletionCredentials): DeletionVerdict {
  if (f.before === undefined) return { kind: 'read', read: 'before' };
  if (f.before === 'missing') {
    const { recordedTenant: then } = f;
    if (then !== undefined && creds.tenant !== undefined && then !== creds.tenant) {
      return {
        kind: 'stall',
        reason: 'CredentialsChanged',
        message: credentialsChangedMessage(id, then, creds.tenant, 'it cannot be deleted from here'),
      };
    }
    return { kind: 'release', how: 'gone' };
  }
  const alreadyDeleting = isDeleting(f.before.status);
  if (!alreadyDeleting && !f.sent) {
    return { kind: 'delete', id, deleteTracingProject: f.deleteTracingProject };
  }
  // The platform deletes asynchronously: look again, so a quick deletion ends in this pass.
  if (f.after === undefined) return { kind: 'read', read: 'after' };
  if (f.after === 'missing') {
    return {
      kind: 'release',
      how: 'deleted',
      event: { reason: EventReason.Deleted, message: `deleted deployment ${id}` },
    };
  }
  return {
    kind: 'wait',
    why: 'platformDeleting',
    reason: 'Deleting',
    deployment: f.after,
    event: alreadyDeleting
      ? undefined
      : {
          reason: Reason.Deleting,
          message: `deletion of deployment ${id} requested; the platform reports ${f.after.status}`,
        },
  };
}
