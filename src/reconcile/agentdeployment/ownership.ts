/**
 * Which deployment is this object's: one pure verdict, shared by the controller's observe step
 * (controllers/agentdeployment/program/external.ts) and the plan (plan/agentdeployment.ts), so the two cannot
 * drift apart. It is given what has been read so far and either asks for the next read or decides:
 *
 * - Recorded id, read first (status.deploymentId). An adopt annotation naming another id is
 *   AdoptionConflict. Found: owned. Missing under the credentials it was recorded with: forgotten, and
 *   the object goes on as if it owned nothing (it is created again). Missing under other credentials:
 *   CredentialsChanged, nothing created in its place.
 * - Adopt annotation, when no id is recorded: missing, or of another name, is AdoptionFailed; else owned.
 * - Name lookup, when neither: the deployments of the object's name. A live one is someone else's unless
 *   the create guard's evidence (guard.ts) says this object made it; one the platform is deleting holds
 *   the name (WaitingForName); none: the object owns nothing and creates.
 *
 * An observe-only object (spec.managementPolicies ["Observe"]) takes part the same way, except that it
 * never creates: a recorded deployment gone is nothing to observe (not forgotten), and the deployment of
 * its name is observed without being owned.
 */
import { Annotation } from '../../api/names.ts';
import { revisionAgeMs, revisionPollDelayMs } from '../../controlplane/progress.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import { claimText } from './claims.ts';
import { judgeFound } from './guard.ts';

/** A GET by id: the deployment, or 'missing' (404). */
export type ReadById = Deployment | 'missing';

/** The deployments of a name: one that is live, and one the platform is deleting. */
export interface NameLookup {
  live?: Deployment | undefined;
  deleting?: Deployment | undefined;
}

export interface OwnershipFacts {
  /** The deployment name (spec.name, or metadata.name). */
  name: string;
  /** status.deploymentId, until a verdict forgets it. */
  recordedId?: string | undefined;
  /** status.credentialsDigest: the tenant the recorded id was created or adopted in. */
  recordedTenant?: string | undefined;
  /** status.createPendingSince: a create was sent (or about to be) and its answer not recorded. */
  pendingSince?: string | undefined;
  /** The adopt-deployment-id annotation. */
  adoptId?: string | undefined;
  /** The tenant the current credentials reach. */
  tenant?: string | undefined;
  /** Another object that records or adopts this id (claims), if any. */
  claimedBy(id: string): string | undefined;
  /**
   * False when the object's status cannot be known (a plan without a cluster): a live deployment of its
   * name is then taken as its own, since nothing says otherwise.
   */
  statusKnown: boolean;
  /** spec.managementPolicies ["Observe"]: sees, never creates, owns only what it records or adopts. */
  observeOnly?: boolean;
  now: Date;
  /** The revision poll interval: how soon a name held by a deployment being deleted is looked at again. */
  revisionPollMs: number;
  /** What has been read so far. */
  recorded?: ReadById;
  adopted?: ReadById;
  byName?: NameLookup;
}

export type OwnershipVerdict =
  /** Read this, put it in the facts, and ask again. */
  | { kind: 'read'; read: 'recorded' | 'adopted' | 'byName' }
  /**
   * The object's deployment. `how`: its recorded id, an accepted adoption, found by the create guard,
   * assumed (a plan that cannot know the object's status), or observed by name (observe-only: watched,
   * not owned). `message` says so, for an event.
   */
  | {
      kind: 'owned';
      deployment: Deployment;
      how: 'recorded' | 'adopted' | 'found' | 'assumed' | 'observed';
      message?: string;
    }
  /** The recorded deployment is gone under the same credentials: forget it, say so, and ask again. */
  | { kind: 'forget'; message: string }
  /** Nothing is this object's and its name is free: it creates. */
  | { kind: 'none' }
  | {
      kind: 'stall';
      reason:
        | 'AdoptionConflict'
        | 'AdoptionFailed'
        | 'CredentialsChanged'
        | 'NameConflict'
        | 'CreateUnconfirmed';
      message: string;
    }
  | { kind: 'wait'; reason: 'WaitingForName'; message: string; retryAfterMs: number };

export function ownership(f: OwnershipFacts): OwnershipVerdict {
  if (f.recordedId) {
    if (f.adoptId && f.adoptId !== f.recordedId) {
      return {
        kind: 'stall',
        reason: 'AdoptionConflict',
        message: `annotation ${Annotation.AdoptDeploymentId} names ${claimText(f.adoptId)} but this object manages ${claimText(f.recordedId)}`,
      };
    }
    if (f.recorded === undefined) return { kind: 'read', read: 'recorded' };
    if (f.recorded !== 'missing') return { kind: 'owned', deployment: f.recorded, how: 'recorded' };
    if (f.recordedTenant !== undefined && f.tenant !== undefined && f.recordedTenant !== f.tenant) {
      return {
        kind: 'stall',
        reason: 'CredentialsChanged',
        message: credentialsChangedMessage(
          f.recordedId,
          f.recordedTenant,
          f.tenant,
          'nothing is created in its place',
        ),
      };
    }
    if (f.observeOnly) return { kind: 'none' };
    return {
      kind: 'forget',
      message: `deployment ${f.recordedId} no longer exists on the control plane; creating it again`,
    };
  }
  if (f.adoptId) {
    if (f.adopted === undefined) return { kind: 'read', read: 'adopted' };
    if (f.adopted === 'missing') {
      return {
        kind: 'stall',
        reason: 'AdoptionFailed',
        message: `annotation ${Annotation.AdoptDeploymentId} names ${claimText(f.adoptId)}, which does not exist`,
      };
    }
    if (f.adopted.name !== f.name) {
      // Its name is what the object would claim: one of another name is not this object's to take.
      return {
        kind: 'stall',
        reason: 'AdoptionFailed',
        message: `annotation ${Annotation.AdoptDeploymentId} names ${claimText(f.adoptId)}, whose name is ${f.adopted.name}, not ${f.name} (spec.name, or metadata.name): set spec.name to ${f.adopted.name} in a new object to adopt it`,
      };
    }
    return {
      kind: 'owned',
      deployment: f.adopted,
      how: 'adopted',
      message: `adopted deployment ${f.adopted.id} (${f.adopted.name})`,
    };
  }
  if (f.byName === undefined) return { kind: 'read', read: 'byName' };
  return nameVerdict(f.byName, f);
}

/**
 * What the deployments of the object's name mean for an object that owns none: a live one is its own
 * only on the create guard's evidence (or, without status, assumed); one being deleted holds the name.
 * Also what a create refused for its name (400) finds when it looks again.
 */
export function nameVerdict(
  lookup: NameLookup,
  f: Pick<
    OwnershipFacts,
    'name' | 'pendingSince' | 'claimedBy' | 'statusKnown' | 'observeOnly' | 'now' | 'revisionPollMs'
  >,
): Exclude<OwnershipVerdict, { kind: 'read' } | { kind: 'forget' }> {
  const { live, deleting } = lookup;
  if (f.observeOnly) {
    const seen = live ?? deleting;
    return seen ? { kind: 'owned', deployment: seen, how: 'observed' } : { kind: 'none' };
  }
  if (live && !f.statusKnown) {
    return {
      kind: 'owned',
      deployment: live,
      how: 'assumed',
      message: `deployment ${live.id} of this name is taken as this object's (its status is unknown)`,
    };
  }
  if (live) {
    const verdict = judgeFound({
      found: live,
      pendingSince: f.pendingSince,
      claimedBy: f.claimedBy(live.id),
    });
    if (!verdict.take) return { kind: 'stall', reason: verdict.reason, message: verdict.message };
    return { kind: 'owned', deployment: live, how: 'found', message: verdict.message };
  }
  if (deleting) {
    return {
      kind: 'wait',
      reason: 'WaitingForName',
      message: `the name ${f.name} is still held by deployment ${deleting.id}, which the platform is deleting (${deleting.status}); it is created once the name is free`,
      retryAfterMs: revisionPollDelayMs(
        revisionAgeMs(deleting.updated_at, f.now.getTime()),
        f.revisionPollMs,
      ),
    };
  }
  return { kind: 'none' };
}

/** The recorded deployment missing under credentials other than those it was recorded with. */
export function credentialsChangedMessage(id: string, recorded: string, now: string, doing: string): string {
  return `deployment ${id} was created or adopted under other credentials (tenant and base URL digest ${recorded}, now ${now}) and the current ones do not find it, so ${doing}. Restore the credentials it was recorded with (spec.credentialsSecretRef, its tenantId and baseUrl); to leave it and start over under the current ones, delete this object with spec.deletionPolicy Orphan and create it again`;
}
