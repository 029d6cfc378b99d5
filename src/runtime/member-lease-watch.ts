/**
 * The member Leases of a shard group as they are written, for shard-membership.ts.
 *
 * Membership times a member's liveness from its first sight of each version of the member's Lease.
 * Listed once a retry period, a version is first seen up to a period after it was written, and two
 * replicas see it up to a period apart: they then judge a dead member expired up to a period apart,
 * and a takeover (which needs every survivor to acknowledge) waits for the later one. Watched, every
 * replica sees a version within milliseconds of its write.
 *
 * Safety does not rest on the watch: a version cannot be seen before it is written, so seeing it sooner
 * never makes a Lease expire sooner than a lease duration after its write; and membership is still
 * decided by the listing that follows each write. The watch only adds sightings, and news that makes
 * a round worth running now (a member joined, left, or acknowledged another list).
 */
import type { Logger } from 'pino';
import { SHORT_WATCH_MS, WatchError, type WatchEvent } from '../kube/watch.ts';
import { sleep } from './clock.ts';
import type { Lease, MemberLeaseApi } from './lease-api.ts';
import { WatchBackoff } from './watch-backoff.ts';

/** Versions remembered per Lease: a listing served just before a watched write still finds its own. */
const VERSIONS_KEPT = 2;

/** When each recent version of each member Lease was first seen (monotonic ms). */
export class LeaseSightings {
  readonly #byLease = new Map<string, Array<{ resourceVersion: string; at: number }>>();

  /** Records `at` as the first sight of this version unless it was seen before; returns the first sight. */
  sight(lease: string, resourceVersion: string, at: number): number {
    const versions = this.#byLease.get(lease) ?? [];
    const known = versions.find((v) => v.resourceVersion === resourceVersion);
    if (known) return known.at;
    versions.push({ resourceVersion, at });
    if (versions.length > VERSIONS_KEPT) versions.shift();
    this.#byLease.set(lease, versions);
    return at;
  }

  /** Forgets the Leases a listing no longer shows. */
  keepOnly(leases: ReadonlySet<string>): void {
    for (const lease of this.#byLease.keys()) if (!leases.has(lease)) this.#byLease.delete(lease);
  }
}

export interface MemberLeaseWatchOptions {
  api: MemberLeaseApi;
  namespace: string;
  labelSelector: string;
  sightings: LeaseSightings;
  now: () => number;
  /** A Lease was added, changed or deleted (after its sighting is recorded). */
  onEvent: (type: 'ADDED' | 'MODIFIED' | 'DELETED', lease: Lease) => void;
  signal: AbortSignal;
  logger: Logger;
  initialBackoffMs?: number | undefined;
}

/**
 * Watches until the signal aborts. Each watch starts at the most recent state (every Lease comes as
 * ADDED: nothing to resume from, and a Lease seen again keeps its first sight); a failure waits
 * client-go's backoff before the next.
 */
export async function watchMemberLeases(options: MemberLeaseWatchOptions): Promise<void> {
  const { api, namespace, labelSelector, sightings, now, signal, logger } = options;
  const backoff = new WatchBackoff({ initialMs: options.initialBackoffMs });
  const onEvent = (event: WatchEvent) => {
    if (event.type === 'ERROR') throw new WatchError('the member Lease watch sent an error');
    if (event.type === 'BOOKMARK') return;
    const lease = event.object as Lease;
    const name = lease.metadata?.name;
    const rv = lease.metadata?.resourceVersion;
    if (!name || !rv) return;
    if (event.type !== 'DELETED') sightings.sight(name, rv, now());
    options.onEvent(event.type, lease);
  };
  while (!signal.aborted) {
    const openedAt = now();
    try {
      await api.watchNamespacedLease({ namespace, labelSelector, signal }, onEvent);
      if (signal.aborted || now() - openedAt >= SHORT_WATCH_MS) continue;
    } catch (err) {
      if (signal.aborted) return;
      logger.warn(
        { error: err instanceof Error ? err.message : String(err) },
        'the member Lease watch failed; listings alone time liveness until it is back',
      );
    }
    await sleep(backoff.next(), signal);
  }
}
