/**
 * Shard membership for `--sharding=auto`: one coordination.k8s.io/v1 Lease per replica (its holder the
 * replica's identity), renewed like a leader's, and listed by every replica to learn who is live. Each
 * replica publishes in an annotation of its Lease the member list it has acknowledged, and
 * shard-ownership.ts decides from those lists which objects it may work on.
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
import { sleep } from './clock.ts';
import { kubeLeaseApi, type Lease, type MemberLeaseApi, microTime } from './lease-api.ts';
import { LeaseSightings, watchMemberLeases } from './member-lease-watch.ts';
import type { MemberClaim } from './shard-ownership.ts';
import { type KeyCopy, MAY_WORK, OWNS, ShardVerdicts, STANDS_BY, UNCLAIMED } from './shard-verdicts.ts';

/** The label every member Lease of a group carries (its value: the group, --leader-election-id). */
export const SHARD_GROUP_LABEL = 'deploy.agents.dev/shard-group';
/** The annotation holding the member list a replica acknowledged, comma-separated and sorted. */
export const ACKNOWLEDGED_MEMBERS_ANNOTATION = 'deploy.agents.dev/acknowledged-members';

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
  /** The copy of a key the verdicts are kept under (shard-verdicts.ts); default: the key asked with. */
  keyCopy?: KeyCopy;
  api?: MemberLeaseApi;
  monotonicNow?: () => number;
}

export interface ShardMembership {
  readonly identity: string;
  /** Whether a pass of `key` may start now on this replica. */
  mayWork(key: string): boolean;
  /** Whether `key` belongs to this replica under the member list it sees (may work on it, or soon will). */
  owns(key: string): boolean;
  /**
   * Of `keys`, how many a pass may start on here now (mayWork) and how many no live member may hold
   * (a handover not acknowledged yet): one walk over verdicts computed once per view of the members
   * (shard-verdicts.ts; a scrape counts every cached key).
   */
  census(keys: Iterable<string>): { owned: number; unowned: number };
  /** How many views of the members keys were judged by: the same number, the same answers for every key. */
  views(): number;
  /** Whether this replica takes `key` over should its owner go (standbyOf, under the members it sees). */
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

/** A Lease name from the group and identity: lower case, letters, digits and dashes. */
export function memberLeaseName(group: string, identity: string): string {
  const safe = identity
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${group}-${safe}`.slice(0, 253).replace(/-+$/, '');
}

const parseMembers = (value: string | undefined): string[] =>
  (value ?? '').split(',').filter((s) => s !== '');

interface Claim {
  list: readonly string[];
  seq: number;
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

  let own: Lease | undefined;
  let ownKnown = false; // own holds the Lease as stored (false after a write whose outcome is unknown)
  let lost = false;
  /** The start of the last successful renewal (monotonic). */
  let renewedAt = Number.NEGATIVE_INFINITY;
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  let seq = 0;
  /** Every list this replica's Lease may show, and lists written but not followed by a read yet. */
  let claims: Claim[] = [{ list: [], seq: 0 }];
  let target: readonly string[] = [];
  let targetSince = now();
  let others: MemberClaim[] = [];
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

  const viewNow = () => ({ identity, claims: claims.map((c) => c.list), target, others, lost });
  const verdicts = new ShardVerdicts(viewNow(), options.keyCopy);
  /** After any change of claims, target, others or lost (before a write that shows it goes out). */
  const judgeAnew = () => verdicts.judgeBy(viewNow());
  /**
   * This replica acknowledged the members it sees and some live member has not yet, for at most two
   * retry periods after the change (each sees it within one; a member still draining a pass wakes
   * itself, so a long wait is not polled).
   */
  const awaitingAcknowledgements = () => {
    const acknowledged = (claims.at(-1)?.list ?? []).join(',');
    return (
      now() - targetSince < 2 * retryPeriodMs &&
      acknowledged === target.join(',') &&
      others.some((m) => m.acknowledged.join(',') !== acknowledged)
    );
  };
  const loses = (key: string) => (verdicts.of(key) & OWNS) === 0;
  const drained = () => {
    for (const key of options.running()) if (loses(key)) return false;
    return true;
  };

  function lose(why: string): void {
    if (lost) return;
    lost = true;
    judgeAnew();
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
    if (!ownKnown) {
      try {
        own = await api.readNamespacedLease({ name, namespace });
        if (own.spec?.holderIdentity !== identity) {
          lose('member Lease taken by another holder');
          return undefined;
        }
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // Deleted by another replica as expired: this one was judged dead and must not come back.
        if (own) {
          lose('member Lease deleted');
          return undefined;
        }
      }
    }
    const acknowledge = drained() ? target : (claims.at(-1)?.list ?? []);
    const writeSeq = ++seq;
    const last = claims.at(-1);
    // The same list again (a plain renewal): one entry, carrying the newest write.
    if (last && last.list.join(',') === acknowledge.join(',')) last.seq = writeSeq;
    else claims.push({ list: acknowledge, seq: writeSeq });
    judgeAnew();
    const stamp = microTime();
    const body: Lease = {
      metadata: {
        ...own?.metadata,
        name,
        namespace,
        labels: { ...own?.metadata?.labels, [SHARD_GROUP_LABEL]: group },
        annotations: {
          ...own?.metadata?.annotations,
          [ACKNOWLEDGED_MEMBERS_ANNOTATION]: acknowledge.join(','),
        },
      },
      spec: {
        holderIdentity: identity,
        leaseDurationSeconds,
        acquireTime: own?.spec?.acquireTime ?? stamp,
        renewTime: stamp,
      },
    };
    ownKnown = false;
    own = own
      ? await api.replaceNamespacedLease({ name, namespace, body })
      : await api.createNamespacedLease({ namespace, body });
    ownKnown = true;
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
    const at = now();
    const live: MemberClaim[] = [];
    nextExpiry = Number.POSITIVE_INFINITY;
    const names = new Set<string>();
    for (const lease of items) {
      const leaseName = lease.metadata?.name ?? '';
      const rv = lease.metadata?.resourceVersion ?? '';
      names.add(leaseName);
      const holder = lease.spec?.holderIdentity ?? '';
      if (holder === identity) continue;
      const firstSeen = sightings.sight(leaseName, rv, at);
      const heldForMs = (lease.spec?.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
      if (holder === '') continue;
      if (startedAt >= firstSeen + heldForMs) {
        // Dead: it stopped before this could be seen. Its Lease goes (only this version of it).
        api
          .deleteNamespacedLease({ name: leaseName, namespace, resourceVersion: rv })
          .then(() => log.info({ member: holder }, 'deleted the Lease of a dead member'))
          .catch(() => {});
        continue;
      }
      nextExpiry = Math.min(nextExpiry, firstSeen + heldForMs);
      live.push({
        identity: holder,
        acknowledged: parseMembers(lease.metadata?.annotations?.[ACKNOWLEDGED_MEMBERS_ANNOTATION]),
      });
    }
    sightings.keepOnly(names);
    others = live;
    const members = [identity, ...live.map((m) => m.identity)].sort();
    if (members.join(',') !== target.join(',')) {
      log.info({ members, before: target }, 'shard members changed');
      target = members;
      targetSince = now();
    }
    // The others' lists were read after this write: older lists of this replica are seen no more.
    if (confirmedSeq !== undefined) claims = claims.filter((c) => c.seq >= confirmedSeq);
    judgeAnew();
    const settled = claims.length === 1 && claims[0]?.list.join(',') === target.join(',');
    const next = JSON.stringify([claims.map((c) => c.list), target, others]);
    if (next !== signature) {
      signature = next;
      if (settled) {
        if (claims[0]?.list.length) markJoined();
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
    const last = claims.at(-1)?.list ?? [];
    return last.join(',') !== target.join(',') ? drained() : claims.length > 1;
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
  /** Whether a watched Lease differs from what the last listing showed of its member. */
  const isNews = (type: 'ADDED' | 'MODIFIED' | 'DELETED', lease: Lease) => {
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder === identity) return false;
    const known = others.find((m) => m.identity === holder);
    if (type === 'DELETED') return known !== undefined;
    const acknowledged = parseMembers(lease.metadata?.annotations?.[ACKNOWLEDGED_MEMBERS_ANNOTATION]);
    return holder !== '' && known?.acknowledged.join(',') !== acknowledged.join(',');
  };
  const watching = watchMemberLeases({
    api,
    namespace,
    labelSelector,
    sightings,
    now,
    signal: stopping.signal,
    logger: log,
    onEvent: (type, lease) => {
      if (!isNews(type, lease)) return;
      news = true;
      wakeUp.abort();
    },
  });
  const running = run();

  return {
    identity,
    mayWork: (key) => (verdicts.of(key) & MAY_WORK) !== 0,
    owns: (key) => !lost && !loses(key),
    standsBy: (key) => (verdicts.of(key) & STANDS_BY) !== 0,
    census: (keys) => {
      let owned = 0;
      let unowned = 0;
      for (const key of keys) {
        const verdict = verdicts.of(key);
        if (verdict & MAY_WORK) owned++;
        if (verdict & UNCLAIMED) unowned++;
      }
      return { owned, unowned };
    },
    views: () => verdicts.views,
    members: () => target,
    heldUntil: () =>
      lost || stopping.signal.aborted ? Number.NEGATIVE_INFINITY : renewedAt + leaseDurationMs,
    joined,
    wake: () => {
      if (target.join(',') !== (claims.at(-1)?.list ?? []).join(',')) wakeUp.abort();
    },
    async release(): Promise<void> {
      stopping.abort();
      await Promise.all([running, watching]);
      clearTimeout(deadlineTimer);
      if (lost || !own) return;
      try {
        // After a write of unknown outcome, the version stored is read first.
        const current = ownKnown ? own : await api.readNamespacedLease({ name, namespace });
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
