/**
 * One credential identity's listing of its deployments (observer.ts): 100 ids a call, each page's
 * deployments kept as snapshots, and the objects whose deployment changed or vanished told (or, on a
 * first listing, collected to go first). A page over its size bound is split in halves.
 */
import type { Logger } from 'pino';
import { type ControlPlaneClient, KNOWN_ANSWER } from '../../../controlplane/client.ts';
import type { Credentials } from '../../../controlplane/credentials.ts';
import { ResponseTooLargeError } from '../../../controlplane/errors.ts';
import {
  fingerprintOf,
  pageDigest,
  type Snapshot,
  type SnapshotStore,
  snapshotKey,
} from './snapshot-store.ts';
import type { Group } from './tracked-deployments.ts';

export const IDS_PER_LIST = 100;

/** What the first listing compares against, and where it puts the objects to enqueue first. */
export interface Priming {
  revisions: ReadonlyMap<string, string>;
  changed: Set<string>;
  /** The objects whose deployment it lists with the latest revision they record. */
  unchanged: Set<string>;
  /**
   * A takeover's: a page's objects, once that page is sorted into `changed` and `unchanged` (or
   * failed: its objects then find out first-hand), so their passes need not wait for the last page.
   */
  listed?: (keys: readonly string[]) => void;
}

/** What a listing reads and tells: the observer's store, clients and state. */
export interface ListingDeps {
  store: SnapshotStore;
  clientFor: (credentials: Credentials, signal: AbortSignal) => ControlPlaneClient;
  onChange: (key: string) => void;
  logger: Logger;
  now: () => number;
  /** Whether the identity's listing failed on its last poll. */
  failing: (identity: string) => boolean;
  /** stop() was called: a listing in flight ends without reporting its cancelled calls. */
  halted: () => boolean;
}

/**
 * Lists one identity's deployments, 100 ids a call, keeping each as a snapshot and enqueueing the
 * objects whose deployment changed or vanished. Snapshots taken after `startedAt` (a reconcile's own
 * read) are newer than the listing and stay. A page over its size bound is split in halves; a
 * deployment over it alone is listed alone from then on, and its object is told once.
 */
export async function listGroup(
  deps: ListingDeps,
  groupKey: string,
  { credentials, keysById, matched }: Group,
  startedAt: number,
  signal: AbortSignal,
  /**
   * On the first listing: the latest revision each object recorded, and where to put the objects
   * whose deployment changed since (another latest revision, or gone), to be enqueued first after.
   */
  priming?: Priming,
  pagesInFlight = 1,
): Promise<'listed' | 'failed' | 'halted'> {
  const client = deps.clientFor(credentials, signal);
  const alone: string[][] = [];
  const batched: string[] = [];
  for (const id of keysById.keys()) {
    if (deps.store.isOverSize(snapshotKey(groupKey, id))) alone.push([id]);
    else batched.push(id);
  }
  const chunks: string[][] = [];
  for (let i = 0; i < batched.length; i += IDS_PER_LIST) chunks.push(batched.slice(i, i + IDS_PER_LIST));
  chunks.push(...alone);
  let result: 'listed' | 'failed' | 'halted' = 'listed';
  // Each lane takes the next page (halves of one over its bound go first) until none is left.
  const lane = async () => {
    for (let chunk = chunks.shift(); chunk !== undefined && result !== 'halted'; chunk = chunks.shift()) {
      const outcome = await listPage(
        deps,
        groupKey,
        chunk,
        chunks,
        { keysById, matched },
        client,
        startedAt,
        priming,
      );
      if (outcome === 'halted' || (outcome === 'failed' && result === 'listed')) result = outcome;
      if (outcome !== 'halted' && outcome !== 'split')
        priming?.listed?.(chunk.flatMap((id) => keysById.get(id) ?? []));
    }
  };
  await Promise.all(Array.from({ length: pagesInFlight }, lane));
  return result;
}

/**
 * One page of a listing; what it changes of the listing's result ('failed', 'halted'), if anything, or
 * 'split' (over its size bound: its halves are queued instead).
 */
async function listPage(
  deps: ListingDeps,
  groupKey: string,
  chunk: string[],
  chunks: string[][],
  { keysById, matched }: Pick<Group, 'keysById' | 'matched'>,
  client: ControlPlaneClient,
  startedAt: number,
  priming: Priming | undefined,
): Promise<'failed' | 'halted' | 'split' | undefined> {
  const changedOrGone = (key: string) => {
    if (priming) priming.changed.add(key);
    else deps.onChange(key);
  };
  // Listed with another configuration than the one its pass found in sync with the spec: whatever the
  // snapshot says (it may be a read no pass compared, or an answer to a PATCH that was lost).
  const unlikeSpec = (id: string, snapshot: Snapshot | undefined) => {
    const wanted = matched.get(id);
    return wanted !== undefined && snapshot !== undefined && snapshot.configuration !== wanted;
  };
  let page: Awaited<ReturnType<ControlPlaneClient['listDeployments']>>;
  // Each id's snapshot key, made once: a steady poll reads every one of them once or twice.
  const ats = chunk.map((id) => snapshotKey(groupKey, id));
  let digest = '';
  // A steady poll's page is mostly the same text as the last time: every snapshot it would confirm is
  // confirmed from that text's digest, without parsing, validating and fingerprinting 100 deployments
  // again (polls in proportion to N, while N objects converge, made that cost grow as N²). Applied
  // already means every id asked for has its snapshot from that very page (one from a reconcile's own
  // read since, or one dropped, has not).
  const known = (text: string) => {
    digest = pageDigest(chunk, text);
    return priming === undefined && ats.every((at) => deps.store.get(at)?.page === digest);
  };
  try {
    page = await client.listDeployments({ deploymentIds: chunk, limit: IDS_PER_LIST }, undefined, known);
  } catch (err) {
    // Stopped (shutdown, lost leadership) while listing: nothing to tell anyone.
    if (deps.halted()) return 'halted';
    if (err instanceof ResponseTooLargeError)
      return overflowed(deps, groupKey, chunk, chunks, keysById) ? 'split' : undefined;
    // Ready objects wait for this poll to bring them back: when a listing starts failing, let
    // each find out first-hand (its own read fails the same way, says so in its conditions and
    // backs off). Not again on every failed poll: that would cut their backoff short.
    if (deps.failing(groupKey)) return 'failed';
    deps.logger.warn(
      { error: err instanceof Error ? err.message : String(err), deployments: chunk.length },
      'batched poll failed; reconciling those objects',
    );
    for (const id of chunk) {
      const key = keysById.get(id);
      if (key) deps.onChange(key);
    }
    return 'failed';
  }
  if (page === KNOWN_ANSWER) {
    for (const [i, at] of ats.entries()) {
      deps.store.clearOverSize(at);
      const snapshot = deps.store.get(at);
      if (!snapshot || snapshot.at > startedAt) continue;
      snapshot.at = deps.now();
      const id = chunk[i] as string;
      const key = keysById.get(id);
      if (key && unlikeSpec(id, snapshot)) deps.onChange(key);
    }
    return undefined;
  }
  const seen = new Set<string>();
  for (const deployment of page.resources) {
    seen.add(deployment.id);
    const at = snapshotKey(groupKey, deployment.id);
    deps.store.clearOverSize(at);
    const before = deps.store.get(at);
    if (before && before.at > startedAt) continue;
    const key = keysById.get(deployment.id);
    if (!key) continue;
    const fingerprint = fingerprintOf(deployment);
    if (before?.fingerprint === fingerprint) {
      // Unchanged: the snapshot kept stays, confirmed. Projecting and interning it again on every
      // poll made garbage in proportion to N, polls in proportion to N while N objects converge.
      before.at = deps.now();
    } else if (deps.store.hold(at, key, deployment, fingerprint, before) !== true) {
      // Past its namespace's budget: its object finds out first-hand, once.
      if (deps.store.markOverBudget(at)) deps.onChange(key);
      continue;
    }
    const held = deps.store.get(at);
    if (held) held.page = digest;
    if ((before && before.fingerprint !== fingerprint) || unlikeSpec(deployment.id, held)) deps.onChange(key);
    const recorded = priming?.revisions.get(key);
    if (recorded && recorded !== deployment.latest_revision_id) changedOrGone(key);
    else if (recorded) priming?.unchanged.add(key);
  }
  for (const [i, id] of chunk.entries()) {
    const at = ats[i] as string;
    if (seen.has(id) || (deps.store.get(at)?.at ?? 0) > startedAt) continue;
    // Gone (or not listed): let the object's reconcile find out first-hand.
    deps.store.drop(at);
    const key = keysById.get(id);
    if (key) changedOrGone(key);
  }
  return undefined;
}

/**
 * A page whose answer was over the size bound: its halves go first in the queue (true); one id alone
 * is that deployment's own problem: no snapshot, listed alone from now on, and its object told once
 * (its own read then says BudgetExceeded, naming the bound).
 */
function overflowed(
  deps: ListingDeps,
  identity: string,
  chunk: string[],
  queue: string[][],
  keysById: Map<string, string>,
): boolean {
  if (chunk.length > 1) {
    const half = Math.ceil(chunk.length / 2);
    queue.unshift(chunk.slice(0, half), chunk.slice(half));
    return true;
  }
  const id = chunk[0] as string;
  const at = snapshotKey(identity, id);
  deps.store.drop(at);
  if (!deps.store.markOverSize(at)) return false;
  const key = keysById.get(id);
  if (key) deps.onChange(key);
  return false;
}
