/**
 * Batched observation: one loop per poll interval lists the deployments of every tracked object through
 * the list endpoint with `deployment_ids` (100 per call, grouped by credentials), keeps each as a
 * snapshot, and enqueues only the objects whose deployment changed or vanished. Reconciles read a fresh
 * snapshot instead of a GET, so a poll of N steady objects costs ceil(N/100) calls.
 *
 * Snapshots are keyed by the credential identity (credentialsKey: base URL, tenant and key, as a digest)
 * and the id: what one control plane says can only ever be read back under the credentials that asked
 * it, so a server answering with another tenant's deployment id plants nothing in that tenant's view.
 *
 * Each identity is listed on its own, in parallel and under its own deadline (issue 32): a server that
 * hangs its listing delays only the objects on it, never another identity's poll (group-listing.ts
 * lists the pages). A page whose answer is over its size bound is the page's budget problem: it is
 * split in halves down to one id, and one deployment over the bound is that object's to find out about
 * (its own read says BudgetExceeded).
 *
 * What the snapshots of one namespace's objects weigh together is bounded (snapshot-budget.ts): one that
 * does not fit is not held, and its object's own read says BudgetExceeded naming the setting.
 */
import type { Logger } from 'pino';
import type { ControlPlaneClient } from '../../../controlplane/client.ts';
import type { Credentials } from '../../../controlplane/credentials.ts';
import type { BudgetExceededError } from '../../../controlplane/errors.ts';
import type { Deployment } from '../../../controlplane/schemas.ts';
import { type ListingDeps, listGroup, type Priming } from './group-listing.ts';
import { SnapshotBudget } from './snapshot-budget.ts';
import { fingerprintOf, SnapshotStore, snapshotKey } from './snapshot-store.ts';
import { type Group, TrackedDeployments } from './tracked-deployments.ts';

/** The shortest deadline of one identity's listing: a few calls' deadlines, whatever the poll interval. */
export const MIN_LISTING_DEADLINE_MS = 90_000;
/**
 * Pages a takeover's first listing has in flight at once (a regular poll lists one at a time): its
 * objects' passes wait for it, and their owner died seconds ago.
 */
export const GAINED_PAGES_IN_FLIGHT = 4;

/** An object's recorded deployment, as the first listing takes it. */
export interface RecordedDeployment {
  key: string;
  credentials: Credentials;
  deploymentId: string;
  /** status.latestRevisionId: another one listed means the deployment changed since. */
  latestRevisionId?: string | undefined;
}

export interface DeploymentObserverOptions {
  pollIntervalMs: number;
  /**
   * How long one identity's listing may take before it is abandoned (its objects then find out
   * first-hand). Default: two poll intervals, at least MIN_LISTING_DEADLINE_MS.
   */
  listingDeadlineMs?: number;
  /** Bytes of snapshots held per namespace of the objects they are for; default snapshot-budget.ts's. */
  budget?: SnapshotBudget;
  /** What of a deployment is kept as its snapshot (e.g. with repeated values interned); default all. */
  keep?: (deployment: Deployment) => Deployment;
  /** A client whose calls `signal` cancels (the listing's deadline). */
  clientFor: (credentials: Credentials, signal: AbortSignal) => ControlPlaneClient;
  /**
   * `first`: the first listing shows the deployment changed since the object recorded it: it goes
   * ahead. `unchanged`: a takeover's first listing shows it as recorded (prime with `enqueue`).
   */
  onChange: (key: string, options?: { first?: boolean; unchanged?: boolean }) => void;
  logger: Logger;
  now?: () => number;
}

export class DeploymentObserver {
  readonly #options: DeploymentObserverOptions;
  readonly #now: () => number;
  readonly #store: SnapshotStore;
  readonly #listing: ListingDeps;
  readonly #tracked = new TrackedDeployments();
  /**
   * Identities prime() is listing still: the keys it lists (all of the identity's, unless a takeover's),
   * and the keys whose passes wait for it.
   */
  readonly #priming = new Map<string, { listing?: Set<string>; held: Set<string> }>();
  /** Credentials (by key) whose listing failed on their last poll. */
  readonly #failing = new Set<string>();
  /** Per identity, when its latest completed listing started: every snapshot it took is that recent. */
  readonly #lastPollStartedAt = new Map<string, number>();
  /** Identities whose listing runs still (until it ends), and those a poll found so (listed again after). */
  readonly #inFlight = new Map<string, Promise<unknown>>();
  readonly #due = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = true;
  /** stop() was called after a start(): a poll in flight ends without reporting its cancelled calls. */
  #halted = false;

  constructor(options: DeploymentObserverOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#store = new SnapshotStore(
      options.budget ?? new SnapshotBudget(),
      options.keep ?? ((deployment) => deployment),
      this.#now,
    );
    this.#listing = {
      store: this.#store,
      clientFor: options.clientFor,
      onChange: (key) => options.onChange(key),
      logger: options.logger,
      now: this.#now,
      failing: (identity) => this.#failing.has(identity),
      halted: () => this.#halted,
    };
  }

  /**
   * A snapshot the latest completed poll took (or confirmed), or one younger than 1.5 poll intervals
   * (a reconcile's own read, before a poll covered it). Measured against the poll rather than the clock
   * alone: at N = 10,000 a poll is 100 calls, and polls start an interval after the previous one ended,
   * so a snapshot can be older than 1.5 intervals and still be the newest there is.
   */
  fresh(identity: string, deploymentId: string): Deployment | undefined {
    const snap = this.#store.get(snapshotKey(identity, deploymentId));
    if (!snap) return undefined;
    const polledAt = this.#lastPollStartedAt.get(identity);
    const polled = polledAt !== undefined && snap.at >= polledAt;
    if (!polled && this.#now() - snap.at > this.#options.pollIntervalMs * 1.5) return undefined;
    return snap.deployment;
  }

  /**
   * What the reconcile of `key` saw first-hand (GET, POST or PATCH response) under the credentials
   * `identity`; the error its pass reads when the deployment does not fit its namespace's budget.
   */
  remember(identity: string, deployment: Deployment, key: string): BudgetExceededError | undefined {
    const at = snapshotKey(identity, deployment.id);
    this.#store.clearOverSize(at);
    const held = this.#store.hold(at, key, deployment, fingerprintOf(deployment));
    return held === true ? undefined : held;
  }

  forget(identity: string, deploymentId: string): void {
    this.#store.forget(snapshotKey(identity, deploymentId));
  }

  /** `matched`: the configuration (configurationDigest) its pass found in sync with the spec. */
  track(key: string, credentials: Credentials, deploymentId: string, matched?: string): void {
    const replaced = this.#tracked.track(key, credentials, deploymentId, matched);
    // The snapshot of what it tracked before goes with it (and its room in the namespace's budget).
    if (replaced) this.forget(replaced.credentialsId, replaced.deploymentId);
  }

  /** A pass of `key` begins: what it found in sync before is no longer the poll's to compare with. */
  unmatch(key: string): void {
    this.#tracked.unmatch(key);
  }

  untrack(key: string): void {
    const tracked = this.#tracked.untrack(key);
    if (tracked) this.forget(tracked.credentialsId, tracked.deploymentId);
  }

  /**
   * Whether the poll lists a deployment of `namespace` under the credential identity `identity`: the
   * identity is in use there however long since that object's last pass (its resync may be hours away).
   */
  uses(namespace: string, identity: string): boolean {
    return this.#tracked.uses(namespace, identity);
  }

  start(): void {
    this.#stopped = false;
    this.#halted = false;
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    this.#halted = true;
    this.#due.clear();
    if (this.#timer) clearTimeout(this.#timer);
  }

  /**
   * Polls start one interval apart (start to start), whatever each takes: at N = 10,000 a poll takes
   * seconds, and each poll interval must hold one poll, no more and no fewer. The timer never waits for
   * a poll to end: an identity still listing when the next poll starts is listed again at once when its
   * listing ends (pollOnce), so one slow server never delays another identity's poll.
   */
  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#schedule();
      this.pollOnce().catch((err: unknown) =>
        this.#options.logger.warn(
          { error: err instanceof Error ? err.message : String(err) },
          'batched poll failed',
        ),
      );
    }, this.#options.pollIntervalMs);
  }

  /**
   * The first listing after the workers start (a restart, a takeover): tracks every object that records
   * a deployment, and lists them all at once, ceil(n/100) calls per credential identity, each identity on
   * its own (one whose control plane hangs holds up only its own objects). Until an identity's listing
   * ends, holdUntilPrimed keeps its objects' passes back and enqueues them after, so they find fresh
   * snapshots instead of reading their deployments one GET each. An object whose deployment changed
   * since it recorded it (another latest revision than its status names, or gone) is enqueued first,
   * ahead of the unchanged ones: after a restart or a takeover, a drift is fixed first.
   *
   * `enqueue` (a takeover, whose objects were not enqueued before): only the objects given are listed,
   * beside any regular poll under way (which lists the others), GAINED_PAGES_IN_FLIGHT pages at a time,
   * and only their passes are held. Once a page is listed and `after` settled (the objects read in
   * full), its objects are enqueued, the changed first, those it shows unchanged marked so: the first
   * pages' passes run while the last are listed. Those `ready` says need nothing of `after` (held in
   * full already) go as soon as their page is listed.
   */
  async prime(
    recorded: Iterable<RecordedDeployment>,
    options: { enqueue?: boolean; after?: Promise<unknown>; ready?: (key: string) => boolean } = {},
  ) {
    const revisions = new Map<string, string>();
    const keys = new Set<string>();
    for (const r of recorded) {
      this.track(r.key, r.credentials, r.deploymentId);
      keys.add(r.key);
      if (r.latestRevisionId) revisions.set(r.key, r.latestRevisionId);
    }
    const groups = this.#tracked.groups();
    if (options.enqueue) {
      for (const [identity, group] of groups) {
        for (const [id, key] of group.keysById) if (!keys.has(key)) group.keysById.delete(id);
        if (group.keysById.size === 0) groups.delete(identity);
      }
    }
    for (const [identity, group] of groups) {
      this.#priming.set(identity, {
        ...(options.enqueue ? { listing: new Set(group.keysById.values()) } : {}),
        held: new Set(),
      });
    }
    const after = options.after?.catch(() => {}) ?? Promise.resolve();
    await Promise.all(
      [...groups].map(async ([identity, group]) => {
        const changed = new Set<string>();
        const unchanged = new Set<string>();
        const released = new Set<string>();
        /**
         * A takeover's listed objects: no longer held, and enqueued, the changed first. Only once
         * listed: enqueued earlier, a changed object's pass would be held and enqueued again behind
         * every other.
         */
        const enqueue = (listed: readonly string[]) => {
          if (this.#halted) return;
          const page = listed.filter((key) => !released.has(key));
          for (const key of page) {
            released.add(key);
            this.#priming.get(identity)?.listing?.delete(key);
          }
          for (const key of page) if (changed.has(key)) this.#options.onChange(key, { first: true });
          for (const key of page) {
            if (!changed.has(key)) this.#options.onChange(key, unchanged.has(key) ? { unchanged: true } : {});
          }
        };
        /** A listed page: what is ready at once, the rest once read in full. */
        const release = async (listed: Iterable<string>) => {
          const page = [...listed];
          if (options.ready) enqueue(page.filter(options.ready));
          await after;
          enqueue(page);
        };
        const priming: Priming = {
          revisions,
          changed,
          unchanged,
          ...(options.enqueue ? { listed: (keys) => void release(keys) } : {}),
        };
        try {
          if (options.enqueue) await this.#listGained(identity, group, priming);
          else await this.#poll(identity, group, { priming });
        } finally {
          await after;
          // What no page released (a listing cut short) goes now.
          if (options.enqueue) await release(group.keysById.values());
          const held = this.#priming.get(identity)?.held ?? new Set<string>();
          this.#priming.delete(identity);
          if (!this.#halted) {
            if (!options.enqueue) for (const key of changed) this.#options.onChange(key, { first: true });
            for (const key of held) if (!released.has(key)) this.#options.onChange(key);
          }
        }
      }),
    );
  }

  /** Whether prime() is listing under some identity still (a cheap check before holdUntilPrimed). */
  get priming(): boolean {
    return this.#priming.size > 0;
  }

  /**
   * Whether a pass under the credentials `identity` must wait for prime()'s listing of them; if so, `key`
   * is enqueued when that listing ends.
   */
  holdUntilPrimed(identity: string, key: string): boolean {
    const priming = this.#priming.get(identity);
    if (!priming || (priming.listing && !priming.listing.has(key))) return false;
    priming.held.add(key);
    return true;
  }

  /**
   * One pass over every tracked deployment, ceil(n/100) list calls per credential identity, each
   * identity on its own and in parallel; resolves when every listing it started ended.
   */
  async pollOnce(): Promise<void> {
    const groups = this.#tracked.groups();
    // Identities gone since (no object left) start afresh if they come back.
    for (const identity of [...this.#failing, ...this.#lastPollStartedAt.keys()]) {
      if (!groups.has(identity)) {
        this.#failing.delete(identity);
        this.#lastPollStartedAt.delete(identity);
      }
    }
    await Promise.all([...groups].map(([identity, group]) => this.#poll(identity, group)));
  }

  /**
   * Lists one identity under its own deadline; one whose previous listing runs still is marked due and
   * listed again as soon as that ends (a slow identity gets every poll it can take, and no more).
   */
  async #poll(identity: string, group: Group, opts: { priming?: Priming } = {}): Promise<void> {
    if (this.#inFlight.has(identity) && !opts.priming) {
      this.#due.add(identity);
      return;
    }
    // The first listing compares what it lists with what the objects record: behind a regular poll
    // under way it waits and lists then (marked due, it would have compared nothing, and a takeover
    // would have enqueued every object as changed).
    while (this.#inFlight.has(identity)) await this.#inFlight.get(identity);
    if (this.#halted) return;
    // A reconcile may remember a newer deployment (its PATCH answer) while this listing is in flight.
    const startedAt = this.#now();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.#listingDeadlineMs());
    timer.unref?.();
    let result: 'listed' | 'failed' | 'halted';
    const listing = listGroup(this.#listing, identity, group, startedAt, deadline.signal, opts.priming);
    this.#inFlight.set(
      identity,
      listing.catch(() => {}),
    );
    try {
      result = await listing;
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(identity);
    }
    if (result === 'halted' || this.#halted) return;
    // Credentials whose listing failed on their last poll; recovered ones start afresh.
    if (result === 'failed') this.#failing.add(identity);
    else if (!opts.priming) this.#failing.delete(identity);
    // A listing of every tracked deployment of the identity, unless a later one completed before it.
    if ((this.#lastPollStartedAt.get(identity) ?? Number.NEGATIVE_INFINITY) < startedAt) {
      this.#lastPollStartedAt.set(identity, startedAt);
    }
    if (this.#due.delete(identity) && !this.#stopped) {
      const again = this.#tracked.groups().get(identity);
      if (again) await this.#poll(identity, again);
    }
  }

  /**
   * A takeover's first listing of the deployments it gained, under the listing deadline. A regular poll
   * of the identity may be under way: it lists the objects tracked before, so neither waits for the
   * other, and this one, covering part of the identity only, does not count as its poll.
   */
  async #listGained(identity: string, group: Group, priming: Priming): Promise<void> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.#listingDeadlineMs());
    timer.unref?.();
    try {
      await listGroup(
        this.#listing,
        identity,
        group,
        this.#now(),
        deadline.signal,
        priming,
        GAINED_PAGES_IN_FLIGHT,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  #listingDeadlineMs(): number {
    return (
      this.#options.listingDeadlineMs ?? Math.max(MIN_LISTING_DEADLINE_MS, 2 * this.#options.pollIntervalMs)
    );
  }
}
