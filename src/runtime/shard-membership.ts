/**
 * Shard membership for `--sharding=auto`: one coordination.k8s.io/v1 Lease per replica (its holder the
 * replica's identity), renewed like a leader's, and listed by every replica to learn who is live. Each
 * replica publishes in an annotation of its Lease the member list it has acknowledged, and
 * shard-assignment.ts decides from those lists which objects it may work on.
 *
 * One round, every retry period: write this replica's Lease (the renewal, carrying the list it
 * acknowledges), then list every member Lease. Reading after writing is what makes two replicas never
 * hold one key (see mayWork). A member list is acknowledged only once no pass of a key this replica
 * loses under it runs still (the caller says which keys run).
 *
 * Liveness is judged as client-go's elector judges a leader: by this replica's monotonic clock, from
 * when it first saw a Lease's resourceVersion, never from the times written in it (clock skew does
 * not matter). Versions are seen as they are written, by a watch (member-lease-watch.ts), and by the
 * listings otherwise. A member is dead only when a listing that started a lease duration after that still
 * shows the same version. A replica that could not renew for its renew deadline stops (onLost) before
 * any other can see its Lease expired: the renew deadline plus one call's deadline is below the lease
 * duration, so even a renewal that lands late cannot extend it past the moment others take over.
 */
import type { Logger } from 'pino';
import type { KubeAccess } from '../kube/access.ts';
import { isConflict, isNotFound } from '../kube/errors.ts';
import { AbortScope } from '../lib/abort-scope.ts';
import { timerDelay } from '../lib/timer-delay.ts';
import { AcknowledgedLists } from './acknowledged-lists.ts';
import { sleep } from './clock.ts';
import { kubeLeaseApi, type Lease, type MemberLeaseApi, microTime } from './lease-api.ts';
import { LeaseSightings, watchMemberLeases } from './member-lease-watch.ts';
import {
  isNews,
  memberLeaseBody,
  memberLeaseName,
  readMemberListing,
  SHARD_GROUP_LABEL,
} from './member-leases.ts';
import type { LiveMember } from './shard-assignment.ts';
import { ASSIGNED, MAY_WORK, ShardView, STANDS_BY, UNASSIGNED } from './shard-view.ts';

export interface ShardMembershipOptions {
  access: KubeAccess;
  namespace: string;
  /** The group's name (--leader-election-id): the member Leases' label value and name prefix. */
  group: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  logger: Logger;
  /** Keys whose pass runs now: a list is acknowledged only once none of those it loses runs. */
  running: () => Iterable<string>;
  /** What this replica may work on may have changed. */
  onChange: () => void;
  /** Renewal failed for the renew deadline: stop every pass at once. Not called by release(). */
  onLost: () => void;
  /** A member list was acknowledged and holds: how long since it was first seen (time to take over). */
  onSettled?: (ms: number) => void;
  api?: MemberLeaseApi;
  monotonicNow?: () => number;
}

export interface ShardMembership {
  readonly identity: string;
  /** Whether a pass of `key` may start now on this replica. */
  mayWork(key: string): boolean;
  /** Whether `key` is assigned to this replica under the member list it sees (it may work on it, or will). */
  assigned(key: string): boolean;
  /**
   * Of `keys`, how many a pass may start on here now (mayWork) and how many no live member may hold
   * (a handover not acknowledged yet), in one walk (a scrape counts every cached key).
   */
  census(keys: Iterable<string>): { assigned: number; unassigned: number };
  /** How many views of the members were set: the same number, the same answers for every key. */
  views(): number;
  /** Whether this replica takes `key` over should its assignee go (standbyOf, under the members it sees). */
  standsBy(key: string): boolean;
  /** The live members as last listed. */
  members(): readonly string[];
  /** Resolves once this replica acknowledged a member list (it may work on its share). */
  readonly joined: Promise<void>;
  /** A pass ended: a waiting acknowledgement may go out now rather than at the next round. */
  wake(): void;
  /** Stops renewing and deletes this replica's Lease; call once no pass runs. */
  release(): Promise<void>;
  /**
   * Until when (monotonic ms) this replica's Lease is certain to be held: its last renewal's start plus
   * the lease duration (write-fence.ts); -Infinity before the first and once lost or released.
   */
  heldUntil(): number;
}

/**
 * How long until the next round: a retry period, or less when a member's Lease would be seen expired
 * sooner (its objects are then taken at that moment, not up to a retry period later). While this
 * replica waits for the others to acknowledge the list it acknowledged, an eighth of one: a key
 * moves only once every live member acknowledged, and each of them acknowledges when it sees the
 * change, at any point of this replica's period (a takeover waited most of a period for it).
 */
export function nextRoundInMs(
  retryPeriodMs: number,
  nextExpiry: number,
  now: number,
  awaitingAcknowledgements = false,
): number {
  const period = awaitingAcknowledgements ? retryPeriodMs / 8 : retryPeriodMs;
  return Math.max(0, Math.min(period, nextExpiry - now));
}

export function startShardMembership(options: ShardMembershipOptions): ShardMembership {
  const { namespace, group, identity, leaseDurationMs, renewDeadlineMs, retryPeriodMs } = options;
  const leaseDurationSeconds = Math.max(1, Math.round(leaseDurationMs / 1000));
  // A renewal that lands at most this long after it started cannot reach past a lease duration.
  // A third of the renew deadline leaves room for attempts after a call that hangs.
  const callDeadlineMs = Math.max(
    1,
    Math.floor(Math.min(renewDeadlineMs / 3, (leaseDurationMs - renewDeadlineMs) * 0.9)),
  );
  const api = options.api ?? kubeLeaseApi(options.access, { deadlineMs: callDeadlineMs });
  const now = options.monotonicNow ?? (() => performance.now());
  const name = memberLeaseName(group, identity);
  const labelSelector = `${SHARD_GROUP_LABEL}=${group}`;
  const log = options.logger.child({ memberLease: `${namespace}/${name}`, identity });
  const stopping = new AbortController();
  let wakeUp = new AbortController();

  let mine: Lease | undefined;
  let mineKnown = false; // mine holds the Lease as stored (false after a write whose outcome is unknown)
  let lost = false;
  /** The start of the last successful renewal (monotonic). */
  let renewedAt = Number.NEGATIVE_INFINITY;
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  const acknowledged = new AcknowledgedLists();
  let target: readonly string[] = [];
  let targetSince = now();
  let others: LiveMember[] = [];
  let signature = '';
  const sightings = new LeaseSightings();
  /** A watched event may change what a round decides: the next round runs without waiting. */
  let news = false;
  /** When the Lease of a live member that stops renewing now would first be seen expired (monotonic). */
  let nextExpiry = Number.POSITIVE_INFINITY;
  let markJoined: () => void = () => {};
  const joined = new Promise<void>((resolve) => {
    markJoined = resolve;
  });

  const viewNow = () => ({ identity, published: acknowledged.all(), target, others, lost });
  const view = new ShardView(viewNow());
  /** After any change of published lists, target, others or lost (before a write that shows it goes out). */
  const setView = () => view.set(viewNow());
  /**
   * This replica acknowledged the members it sees and some live member has not yet, for at most two
   * retry periods after the change (each sees it within one; a member still draining a pass wakes
   * itself, so a long wait is not polled).
   */
  const awaitingAcknowledgements = () => {
    const last = acknowledged.last().join(',');
    return (
      now() - targetSince < 2 * retryPeriodMs &&
      last === target.join(',') &&
      others.some((m) => m.acknowledged.join(',') !== last)
    );
  };
  const loses = (key: string) => (view.of(key) & ASSIGNED) === 0;
  const drained = () => {
    for (const key of options.running()) if (loses(key)) return false;
    return true;
  };

  function lose(why: string): void {
    if (lost) return;
    lost = true;
    setView();
    clearTimeout(deadlineTimer);
    stopping.abort();
    log.error({ why }, 'lost shard membership; stopping every pass');
    options.onLost();
  }

  function renewed(startedAt: number): void {
    if (!lost && !stopping.signal.aborted) renewedAt = startedAt;
    clearTimeout(deadlineTimer);
    deadlineTimer = setTimeout(
      () => lose('member Lease not renewed within the renew deadline'),
      timerDelay(startedAt + renewDeadlineMs - now()),
    );
  }

  /** Writes this replica's Lease with the list it acknowledges; the seq of the write, when it succeeded. */
  async function write(startedAt: number): Promise<number | undefined> {
    if (!mineKnown) {
      try {
        mine = await api.readNamespacedLease({ name, namespace });
        if (mine.spec?.holderIdentity !== identity) {
          lose('member Lease taken by another holder');
          return undefined;
        }
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // Deleted by another replica as expired: this one was judged dead and must not come back.
        if (mine) {
          lose('member Lease deleted');
          return undefined;
        }
      }
    }
    const acknowledge = drained() ? target : acknowledged.last();
    const writeSeq = acknowledged.write(acknowledge);
    setView();
    const stamp = microTime();
    const body = memberLeaseBody({
      mine,
      name,
      namespace,
      group,
      identity,
      acknowledge,
      leaseDurationSeconds,
      stamp,
    });
    mineKnown = false;
    mine = mine
      ? await api.replaceNamespacedLease({ name, namespace, body })
      : await api.createNamespacedLease({ namespace, body });
    mineKnown = true;
    renewed(startedAt);
    return writeSeq;
  }

  /** Lists every member Lease; `confirmedSeq`: the write this listing follows. */
  async function list(confirmedSeq: number | undefined): Promise<void> {
    const startedAt = now();
    const { items } = await api.listNamespacedLease({
      namespace,
      labelSelector,
    });
    const listing = readMemberListing(items, {
      identity,
      sightings,
      startedAt,
      at: now(),
      leaseDurationSeconds,
    });
    // A dead member's Lease goes (only the version seen).
    for (const dead of listing.dead) {
      api
        .deleteNamespacedLease({ name: dead.name, namespace, resourceVersion: dead.resourceVersion })
        .then(() => log.info({ member: dead.holder }, 'deleted the Lease of a dead member'))
        .catch(() => {});
    }
    nextExpiry = listing.nextExpiry;
    others = listing.live;
    const members = [identity, ...others.map((m) => m.identity)].sort();
    if (members.join(',') !== target.join(',')) {
      log.info({ members, before: target }, 'shard members changed');
      target = members;
      targetSince = now();
    }
    if (confirmedSeq !== undefined) acknowledged.confirm(confirmedSeq);
    setView();
    const settled = acknowledged.settledOn(target);
    const next = JSON.stringify([acknowledged.all(), target, others]);
    if (next !== signature) {
      signature = next;
      if (settled) {
        if (acknowledged.last().length) markJoined();
        options.onSettled?.(now() - targetSince);
      }
      options.onChange();
    }
  }

  async function round(): Promise<boolean> {
    const startedAt = now();
    news = false;
    let confirmed: number | undefined;
    try {
      confirmed = await write(startedAt);
    } catch (err) {
      if (!isConflict(err))
        log.warn({ error: err instanceof Error ? err.message : String(err) }, 'member Lease renewal failed');
    }
    if (lost) return false;
    try {
      await list(confirmed);
    } catch (err) {
      log.warn(
        { error: err instanceof Error ? err.message : String(err) },
        'member Leases could not be listed',
      );
      return false;
    }
    // A failed write waits for the next round: no loop of writes against a failing API server.
    if (confirmed === undefined) return false;
    // A list to acknowledge, and nothing of what it takes away runs: write it now.
    return acknowledged.last().join(',') !== target.join(',') ? drained() : acknowledged.unconfirmed();
  }

  async function run(): Promise<void> {
    while (!stopping.signal.aborted) {
      const again = await round();
      if (again || news || stopping.signal.aborted) continue;
      wakeUp = new AbortController();
      const asleep = new AbortScope([stopping.signal, wakeUp.signal]);
      try {
        await sleep(
          nextRoundInMs(retryPeriodMs, nextExpiry, now(), awaitingAcknowledgements()),
          asleep.signal,
        );
      } finally {
        asleep.end();
      }
    }
  }
  const watching = watchMemberLeases({
    api,
    namespace,
    labelSelector,
    sightings,
    now,
    signal: stopping.signal,
    logger: log,
    onEvent: (type, lease) => {
      if (!isNews(identity, others, type, lease)) return;
      news = true;
      wakeUp.abort();
    },
  });
  const running = run();

  return {
    identity,
    mayWork: (key) => (view.of(key) & MAY_WORK) !== 0,
    assigned: (key) => !lost && !loses(key),
    standsBy: (key) => (view.of(key) & STANDS_BY) !== 0,
    census: (keys) => {
      let assigned = 0;
      let unassigned = 0;
      for (const key of keys) {
        const standing = view.of(key);
        if (standing & MAY_WORK) assigned++;
        if (standing & UNASSIGNED) unassigned++;
      }
      return { assigned, unassigned };
    },
    views: () => view.views,
    members: () => target,
    heldUntil: () =>
      lost || stopping.signal.aborted ? Number.NEGATIVE_INFINITY : renewedAt + leaseDurationMs,
    joined,
    wake: () => {
      if (target.join(',') !== acknowledged.last().join(',')) wakeUp.abort();
    },
    async release(): Promise<void> {
      stopping.abort();
      await Promise.all([running, watching]);
      clearTimeout(deadlineTimer);
      if (lost || !mine) return;
      try {
        // After a write of unknown outcome, the version stored is read first.
        const current = mineKnown ? mine : await api.readNamespacedLease({ name, namespace });
        const resourceVersion = current.metadata?.resourceVersion ?? '';
        if (current.spec?.holderIdentity === identity)
          await api.deleteNamespacedLease({ name, namespace, resourceVersion });
        log.info('left the shard: member Lease deleted');
      } catch (err) {
        log.warn(
          { error: err instanceof Error ? err.message : String(err) },
          'could not delete the member Lease',
        );
      }
    },
  };
}
