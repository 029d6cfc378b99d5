/**
 * The fence before every write to the platform (issue 50): a replica sends a create, PATCH, redeploy or
 * delete only while it still holds the key, under a Lease renewed recently enough to outlast the
 * write. Stopping on a timer once renewals fail (the renew deadline) leaves a margin of about a second
 * between the moment a replica stops and the moment another may take the key over; a write that was
 * already on its way, or queued behind the pace, could land after that. Here each write is bounded by
 * the hold instead: it is sent only while the Lease is certain to be held for at least MIN_WRITE_MS
 * more, and it is abandoned (its signal aborts) at the moment the hold could end. What a server applies
 * after that, from a request it received in time, no client can prevent: the bound is the server's.
 *
 * The hold is this replica's own Lease (a member Lease under --sharding=auto, the leader's Lease
 * otherwise): its last renewal's start plus the lease duration, on the monotonic clock. Others judge a
 * Lease expired only a lease duration after they first saw its last renewal, which is no sooner.
 */

/** Time a write is given at the least; a hold ending sooner sends nothing. */
export const MIN_WRITE_MS = 1_000;

/** A write this replica may not send now: the pass ends, and the object is looked at again later. */
export class WriteFenced extends Error {
  override readonly name = 'WriteFenced';
}

export interface WriteFenceOptions {
  /** Until when (monotonic ms) this replica's Lease is certain to be held; undefined: no Lease (one replica). */
  heldUntil?: () => number;
  /** Whether this replica may work on `key` now (its shard); default: every key. */
  mayWork?: (key: string) => boolean;
  now?: () => number;
  /** MIN_WRITE_MS, but in tests of short Leases. */
  minWriteMs?: number;
}

/**
 * How long a write of `key` may take from now, or Infinity without a Lease; throws WriteFenced when it
 * may not be sent at all.
 */
export type WriteFence = (key: string) => number;

export function writeFence(options: WriteFenceOptions = {}): WriteFence {
  const now = options.now ?? (() => performance.now());
  const minWriteMs = options.minWriteMs ?? MIN_WRITE_MS;
  return (key) => {
    if (options.mayWork && !options.mayWork(key))
      throw new WriteFenced(`this replica no longer holds ${key}: nothing is sent; its assignee acts on it`);
    if (!options.heldUntil) return Number.POSITIVE_INFINITY;
    const left = options.heldUntil() - now();
    if (left < minWriteMs)
      throw new WriteFenced(
        `this replica's Lease is not known to be held for ${minWriteMs} ms more (${Math.max(0, Math.round(left))} ms): nothing is sent until it is renewed`,
      );
    return left;
  };
}
