/**
 * The work of one replica under `--sharding=auto`, between the shard membership and the controllers:
 * which keys its queues take, the check before every pass (whileAssigned: a pass starts only while
 * mayWork holds, and is counted while it runs, so a member list is acknowledged only once the passes it
 * takes away end),
 * and what a change of membership sets off (keys gained are enqueued, keys lost are forgotten).
 *
 * The kinds share one membership; a SandboxTemplate's key is hashed with its kind in front, so an
 * AgentDeployment and a SandboxTemplate of one name need not land on one replica.
 */
import type { Reconciler } from './controller.ts';
import type { ShardMembership } from './shard-membership.ts';

export interface ShardedKind {
  /** How the kind's keys are hashed ('' for AgentDeployment, the historical key). */
  prefix: string;
  /** The keys of the kind's cached objects. */
  keys: () => Iterable<string>;
  /** Keys this replica may now work on that it could not before (a takeover): enqueue them. */
  gained: (keys: string[]) => void;
  /** Keys of the kind no longer this replica's: drop what is kept for them (polled snapshots, the object in full). */
  lost: (keys: string[]) => void;
  /** Objects assigned to it or stood by for held as projections alone: their takeover reads them first. */
  awaitingRead?: () => number;
  /**
   * Moves whenever what `keys` and `awaitingRead` read changes, beside the members' view (the cache,
   * the object's forms): with the view's count (views) the same, so are their answers.
   */
  changes: () => number;
}

export class ShardedWork {
  readonly #membership: () => ShardMembership | undefined;
  readonly #running = new Set<string>();
  /**
   * Per kind, the keys this replica may work on as of the last change, and those whose pass started
   * here since (objects created after it): a later change that keeps them gains none of them.
   */
  readonly #permitted = new Map<string, Set<string>>();
  /** Per kind, the keys gained whose first pass here has not ended yet (a takeover under way). */
  readonly #awaitingPass = new Map<string, Set<string>>();
  /** Per kind, a takeover under way: how many keys it gained, and when it gained the first of them. */
  readonly #takingOver = new Map<string, { gained: number; since: number }>();
  readonly #onPassed: ((prefix: string, gained: number, ms: number) => void) | undefined;

  /**
   * `membership`: undefined until this replica joined (then nothing may start). `onPassed`: each time
   * every key a kind gained has had its pass here (a takeover done), with how many and how long since
   * the first of them was gained (every member had acknowledged the change).
   */
  constructor(
    membership: () => ShardMembership | undefined,
    onPassed?: (prefix: string, gained: number, ms: number) => void,
  ) {
    this.#membership = membership;
    this.#onPassed = onPassed;
  }

  /** Whether a kind's queue takes the key: it is this replica's under the member list it sees. */
  admits(prefix: string, key: string): boolean {
    return this.#membership()?.assigned(prefix + key) ?? false;
  }

  /**
   * How many views of the members keys were judged by (-1 before joining): the same number, the same
   * answer from admits, standsBy and mayWork for every key.
   */
  views(): number {
    return this.#membership()?.views() ?? -1;
  }

  /** Whether this replica takes the key over should its assignee go (it keeps the key's object ready). */
  standsBy(prefix: string, key: string): boolean {
    return this.#membership()?.standsBy(prefix + key) ?? false;
  }

  mayWork(prefix: string, key: string): boolean {
    return this.#membership()?.mayWork(prefix + key) ?? false;
  }

  /** Until when (monotonic ms) this replica's member Lease is certain to be held (write-fence.ts). */
  heldUntil(): number {
    return this.#membership()?.heldUntil() ?? Number.NEGATIVE_INFINITY;
  }

  /**
   * How many keys of a kind this replica gained and has not passed yet: 0 once a takeover (a failover,
   * a handover, its join) is done. A pass held for the first listing counts as one, but a takeover
   * enqueues what it lists only once the listing ended.
   */
  awaitingPass(prefix: string): number {
    return this.#awaitingPass.get(prefix)?.size ?? 0;
  }

  /** The hashed keys whose pass runs now. */
  running(): Iterable<string> {
    return this.#running;
  }

  /** A pass of `reconcile` starts only while this replica may work on the key; it is counted while it runs. */
  whileAssigned(prefix: string, reconcile: Reconciler): Reconciler {
    return async (key, ctx) => {
      const hashed = prefix + key;
      // Another replica's now, or not yet this one's: the membership's change enqueues it when it is.
      if (!this.#membership()?.mayWork(hashed)) return {};
      this.#permittedOf(prefix).add(key);
      this.#running.add(hashed);
      try {
        return await reconcile(key, ctx);
      } finally {
        this.#awaitingPass.get(prefix)?.delete(key);
        this.#running.delete(hashed);
        this.#membership()?.wake();
        this.#reportPassed(prefix);
      }
    };
  }

  #permittedOf(prefix: string): Set<string> {
    let permitted = this.#permitted.get(prefix);
    if (!permitted) {
      permitted = new Set();
      this.#permitted.set(prefix, permitted);
    }
    return permitted;
  }

  /** A takeover of the kind is done once nothing it gained awaits its pass. */
  #reportPassed(prefix: string): void {
    const takeover = this.#takingOver.get(prefix);
    if (!takeover || this.awaitingPass(prefix) > 0) return;
    this.#takingOver.delete(prefix);
    this.#onPassed?.(prefix, takeover.gained, performance.now() - takeover.since);
  }

  /** After a membership change: which keys each kind gained and lost. */
  changed(kinds: readonly ShardedKind[]): void {
    const membership = this.#membership();
    if (!membership) return;
    for (const kind of kinds) {
      const before = this.#permittedOf(kind.prefix);
      const now = new Set<string>();
      const gained: string[] = [];
      const lost: string[] = [];
      for (const key of kind.keys()) {
        if (membership.mayWork(kind.prefix + key)) {
          now.add(key);
          if (!before.has(key)) gained.push(key);
        } else if (!membership.assigned(kind.prefix + key)) {
          lost.push(key);
        }
      }
      this.#permitted.set(kind.prefix, now);
      const awaiting = this.#awaitingPass.get(kind.prefix) ?? new Set<string>();
      this.#awaitingPass.set(kind.prefix, awaiting);
      for (const key of lost) awaiting.delete(key);
      for (const key of gained) awaiting.add(key);
      // Gone from the cache (deleted) before its pass: nothing is left to pass.
      for (const key of awaiting) if (!now.has(key)) awaiting.delete(key);
      if (gained.length > 0) {
        const takeover = this.#takingOver.get(kind.prefix) ?? { gained: 0, since: performance.now() };
        this.#takingOver.set(kind.prefix, { ...takeover, gained: takeover.gained + gained.length });
      }
      if (lost.length > 0) kind.lost(lost);
      if (gained.length > 0) kind.gained(gained);
      this.#reportPassed(kind.prefix);
    }
  }
}
