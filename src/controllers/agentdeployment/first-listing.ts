/**
 * The first batched listing as the workers start (a restart, a takeover): which objects it covers, the
 * reconciler that holds an object's pass until the listing of its credentials ended (observer.ts,
 * prime), so the pass finds a fresh snapshot instead of reading its deployment with a GET, and which
 * objects of a takeover have a pass that calls and writes nothing (settledAtGeneration).
 */
import { type Credentials, credentialsKey } from '../../controlplane/credentials.ts';
import type { Reconciler } from '../../runtime/controller.ts';
import { objectKey } from '../../runtime/keys.ts';
import type { DeploymentObserver, RecordedDeployment } from './observer.ts';
import { type CachedAgentDeployment, isProjection } from './projection.ts';
import { settledUntil } from './settled.ts';

/** What the listing reads of an object a projection holds too (a key just gained: projection.ts). */
type ListedObject = CachedAgentDeployment;
type CredentialsOf = (obj: ListedObject) => Credentials | undefined;

/** Objects that record a deployment, are not being deleted, and whose credentials resolve. */
export function recordedDeployments(
  objects: readonly ListedObject[],
  credentialsOf: CredentialsOf,
): RecordedDeployment[] {
  return objects.flatMap((obj) => {
    const deploymentId = obj.status?.deploymentId;
    if (!deploymentId || obj.metadata.deletionTimestamp) return [];
    const credentials = credentialsOf(obj);
    if (!credentials) return [];
    return [
      { key: objectKey(obj), credentials, deploymentId, latestRevisionId: obj.status?.latestRevisionId },
    ];
  });
}

/** `reconcile`, but a pass whose credentials are still being listed returns at once and comes back after. */
export function heldWhileListing(
  reconcile: Reconciler,
  observer: Pick<DeploymentObserver, 'priming' | 'holdUntilPrimed'>,
  objectOf: (key: string) => ListedObject | undefined,
  credentialsOf: CredentialsOf,
): Reconciler {
  return async (key, ctx) => {
    if (observer.priming) {
      const obj = objectOf(key);
      const credentials = obj && credentialsOf(obj);
      if (credentials && observer.holdUntilPrimed(credentialsKey(credentials), key)) return {};
    }
    return reconcile(key, ctx);
  };
}

/**
 * Of a takeover's objects, those settled at their generation (settled.ts) whose deployment the first
 * listing shows unchanged (the latest revision their status records) have a pass that calls and writes
 * nothing, unless something not in the object changed (a Secret rotated, a deployment edited without a
 * new revision): their pass still runs, without a token of the pace (WorkQueue.addUnpaced); everything
 * else takes its token, the changed ones first. A projection says what its object was when projected.
 */
export function settledAtGeneration(obj: ListedObject, now: Date): boolean {
  const until = isProjection(obj) ? obj.settledUntil : settledUntil(obj);
  return until !== undefined && until > now.getTime();
}
