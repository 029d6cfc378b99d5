/**
 * The first batched listing as the workers start (a restart, a takeover): which objects it covers, the
 * reconciler that holds an object's pass until the listing of its credentials ended (observer.ts,
 * prime), so the pass finds a fresh snapshot instead of reading its deployment with a GET, and which
 * objects of a takeover have a pass that calls and writes nothing (settledAtGeneration); a takeover's
 * first listing, beside the read in full of what it gained (primeTakeover).
 */
import type { Logger } from 'pino';
import { type Credentials, credentialsKey } from '../../../controlplane/credentials.ts';
import type { Reconciler } from '../../../runtime/controller.ts';
import { objectKey } from '../../../runtime/keys.ts';
import type { CachedShare } from '../cache/cached-share.ts';
import { type CachedAgentDeployment, isProjection } from '../cache/projection.ts';
import { settledUntil } from '../cache/settled.ts';
import type { DeploymentObserver, RecordedDeployment } from './observer.ts';

/** What the listing reads of an object a projection holds too (a key just gained: projection.ts). */
type ListedObject = CachedAgentDeployment;
type CredentialsOf = (obj: ListedObject) => Credentials | undefined;

/**
 * A takeover's first listing (--sharding=auto): the keys gained are read in full (a namespace listed a
 * page at a time; what fails here, each pass reads) while their deployments are listed from the
 * projections, which record them (observer.prime with enqueue); a page's passes start once it is
 * listed, those of objects still to be read once the read in full ended.
 * Keys with no deployment to list are enqueued once the read in full ended.
 */
export async function primeTakeover(
  keys: readonly string[],
  deps: {
    share: Pick<CachedShare, 'readInFull' | 'awaitsRead'>;
    observer: Pick<DeploymentObserver, 'prime'>;
    objectOf: (key: string) => ListedObject | undefined;
    credentialsOf: CredentialsOf;
    enqueue: (key: string) => void;
    logger: Logger;
  },
): Promise<void> {
  const { share, observer, logger } = deps;
  const startedAt = performance.now();
  let readInFullMs = 0;
  const inFull = share
    .readInFull(keys)
    .catch((err) =>
      logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'gained objects not listed'),
    )
    .finally(() => {
      readInFullMs = Math.round(performance.now() - startedAt);
    });
  const recorded = recordedDeployments(
    keys.flatMap((key) => deps.objectOf(key) ?? []),
    deps.credentialsOf,
  );
  const listed = new Set(recorded.map((r) => r.key));
  void inFull.then(() => {
    for (const key of keys) if (!listed.has(key)) deps.enqueue(key);
  });
  try {
    // What needs no read (held in full: its standby) goes as soon as its page is listed: a failover
    // soon after a change of members may have some of its objects to read still (a standby listing
    // under way), and waiting for those would hold back every other pass of the takeover.
    await observer.prime(recorded, {
      enqueue: true,
      after: inFull,
      ready: (key) => !share.awaitsRead(key),
    });
    logger.info(
      { gained: keys.length, readInFullMs, listedMs: Math.round(performance.now() - startedAt) },
      'gained objects listed',
    );
  } catch (err) {
    // Whatever went wrong, each object still gets its pass (it reads its deployment first-hand).
    for (const key of listed) deps.enqueue(key);
    throw err;
  }
}

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
