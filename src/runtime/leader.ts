import type { Logger } from 'pino';
import type { KubeAccess } from '../kube/access.ts';
import { isConflict, isNotFound } from '../kube/errors.ts';
import { timerDelay } from '../lib/timer-delay.ts';
import { sleep } from './clock.ts';
import { kubeLeaseApi, type Lease, type LeaseApi, microTime } from './lease-api.ts';

export type { LeaseApi } from './lease-api.ts';

export interface LeaderElectionOptions {
  access: KubeAccess;
  namespace: string;
  name: string;
  /** Unique per replica, e.g. pod name + random suffix. */
  identity: string;
  /** How long a lease nobody renews stays taken (rounded to whole seconds, at least 1). */
  leaseDurationMs?: number;
  /** A leader that has not renewed for this long stops leading. Must be below leaseDurationMs. */
  renewDeadlineMs?: number;
  /** Time between attempts to acquire or renew. */
  retryPeriodMs?: number;
  onStartedLeading: () => void;
  /** Leadership was lost: the caller must stop writing at once. Not called by release(). */
  onStoppedLeading: () => void;
  logger: Logger;
  api?: LeaseApi;
  /** A monotonic clock in ms (default performance.now): wall-clock steps must not move deadlines. */
  monotonicNow?: () => number;
}

export interface LeaderElector {
  isLeader(): boolean;
  /**
   * Until when (monotonic ms) this replica is certain to hold the Lease: its last acquire or renewal's
   * start plus the lease duration (write-fence.ts); -Infinity while it does not lead.
   */
  heldUntil(): number;
  /** Stops campaigning and, when leading, empties holderIdentity so another replica takes over now. */
  release(): Promise<void>;
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: every write carries the
 * resourceVersion read just before (optimistic concurrency), and expiry is judged by this replica's
 * own clock from when it last saw the lease change, so clock skew between replicas does not matter.
 * That clock is monotonic, so a step of the wall clock neither extends a leader past its renew
 * deadline nor delays a takeover; the wall clock only stamps the Lease. Every Lease call has a deadline
 * of a quarter of the renew deadline, so a hanging call cannot hold the campaign past it.
 */
export function startLeaderElection(options: LeaderElectionOptions): LeaderElector {
  const { namespace, name, identity } = options;
  const leaseDurationMs = options.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = options.retryPeriodMs ?? 2_000;
  if (renewDeadlineMs >= leaseDurationMs)
    throw new Error('leader election: renewDeadline must be < leaseDuration');
  const leaseDurationSeconds = Math.max(1, Math.round(leaseDurationMs / 1000));
  const api =
    // A quarter of the renew deadline: a call that hangs (an API server back from a restart that
    // accepts connections before it serves) leaves room for fresh attempts before the deadline.
    options.api ?? kubeLeaseApi(options.access, { deadlineMs: Math.max(1, Math.floor(renewDeadlineMs / 4)) });
  const monotonicNow = options.monotonicNow ?? (() => performance.now());
  const log = options.logger.child({ lease: `${namespace}/${name}`, identity });
  const stopping = new AbortController();

  let leader = false;
  /** The start of the last successful acquire or renewal (monotonic). */
  let renewedAt = Number.NEGATIVE_INFINITY;
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  let observedResourceVersion: string | undefined;
  let observedAt = 0;

  function lose(why: string): void {
    if (!leader) return;
    leader = false;
    clearTimeout(deadlineTimer);
    log.warn({ why }, 'stopped leading');
    options.onStoppedLeading();
  }

  /** Called with the start time of a successful acquire or renew. */
  function renewed(attemptStartedAt: number): void {
    renewedAt = attemptStartedAt;
    clearTimeout(deadlineTimer);
    deadlineTimer = setTimeout(
      () => lose('lease not renewed within the renew deadline'),
      timerDelay(attemptStartedAt + renewDeadlineMs - monotonicNow()),
    );
    if (!leader) {
      leader = true;
      log.info('started leading');
      options.onStartedLeading();
    }
  }

  function observe(lease: Lease, now: number): void {
    if (lease.metadata?.resourceVersion !== observedResourceVersion) {
      observedResourceVersion = lease.metadata?.resourceVersion;
      observedAt = now;
    }
  }

  async function tryAcquireOrRenew(now: number): Promise<boolean> {
    let lease: Lease;
    try {
      lease = await api.readNamespacedLease({ name, namespace });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const stamp = microTime();
      const spec = { holderIdentity: identity, leaseDurationSeconds, acquireTime: stamp, renewTime: stamp };
      observe(
        await api.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec } }),
        now,
      );
      return true;
    }
    observe(lease, now);
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const heldFor = (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
    if (holder !== '' && holder !== identity && now < observedAt + heldFor) return false;

    const takingOver = holder !== identity;
    const stamp = microTime();
    const body: Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds,
        renewTime: stamp,
        acquireTime: takingOver ? stamp : spec.acquireTime,
        leaseTransitions: (spec.leaseTransitions ?? 0) + (takingOver && holder !== '' ? 1 : 0),
      },
    };
    observe(await api.replaceNamespacedLease({ name, namespace, body }), now);
    if (takingOver) log.info({ previousHolder: holder || undefined }, 'took over the lease');
    return true;
  }

  async function campaign(): Promise<void> {
    while (!stopping.signal.aborted) {
      const startedAt = monotonicNow();
      try {
        if (await tryAcquireOrRenew(startedAt)) {
          if (!stopping.signal.aborted) renewed(startedAt);
        } else if (leader) {
          lose('another replica holds the lease');
        }
      } catch (err) {
        // A conflict means another writer won this round; anything else is retried until the deadline.
        if (!isConflict(err))
          log.warn({ error: err instanceof Error ? err.message : String(err) }, 'lease update failed');
      }
      await sleep(leader ? retryPeriodMs : retryPeriodMs * (1 + Math.random() * 0.2), stopping.signal);
    }
  }

  const campaigning = campaign();

  return {
    isLeader: () => leader,
    heldUntil: () => (leader ? renewedAt + leaseDurationMs : Number.NEGATIVE_INFINITY),
    async release(): Promise<void> {
      stopping.abort();
      await campaigning;
      clearTimeout(deadlineTimer);
      if (!leader) return;
      leader = false;
      try {
        const lease = await api.readNamespacedLease({ name, namespace });
        if (lease.spec?.holderIdentity !== identity) return;
        const spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 };
        await api.replaceNamespacedLease({ name, namespace, body: { ...lease, spec } });
        log.info('released the lease');
      } catch (err) {
        log.warn({ error: err instanceof Error ? err.message : String(err) }, 'could not release the lease');
      }
    },
  };
}
