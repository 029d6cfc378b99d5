/**
 * Batched observation: one loop per poll interval lists the deployments of every tracked object through
 * the list endpoint with `deployment_ids` (100 per call, grouped by credentials), keeps each as a
 * snapshot, and enqueues only the objects whose deployment changed or vanished. Reconciles read a fresh
 * snapshot instead of a GET, so a poll of N steady objects costs ceil(N/100) calls.
 *
 * Snapshots are keyed by the credential identity (credentialsKey: base URL, tenant and key, as a digest)
 * and the id: what one control plane says can only ever be read back under the credentials that asked
 * it, so a server answering with another tenant's deployment id plants nothing in that tenant's view.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { ControlPlaneClient } from '../../controlplane/client.ts';
import { type Credentials, credentialsKey } from '../../controlplane/credentials.ts';
import type { Deployment } from '../../controlplane/schemas.ts';

export const IDS_PER_LIST = 100;

interface Snapshot {
  deployment: Deployment;
  /** A digest of the deployment as listed, to tell a change: not the JSON itself, 10,000 of which add up. */
  fingerprint: string;
  at: number;
}

const snapshotKey = (identity: string, deploymentId: string) => `${identity}/${deploymentId}`;

const fingerprintOf = (deployment: Deployment): string =>
  createHash('sha256').update(JSON.stringify(deployment)).digest('base64');

/** An object's recorded deployment, as the first listing takes it. */
export interface RecordedDeployment {
  key: string;
  credentials: Credentials;
  deploymentId: string;
  /** status.latestRevisionId: another one listed means the deployment changed since. */
  latestRevisionId?: string | undefined;
}

interface Group {
  credentials: Credentials;
  keysById: Map<string, string>;
}

interface Tracked {
  /** credentialsKey of its credentials, kept once in #credentials. */
  credentialsId: string;
  deploymentId: string;
}

export interface DeploymentObserverOptions {
  pollIntervalMs: number;
  /** What of a deployment is kept as its snapshot (e.g. with repeated values interned); default all. */
  keep?: (deployment: Deployment) => Deployment;
  clientFor: (credentials: Credentials) => ControlPlaneClient;
  /** `first`: the first listing shows the deployment changed since the object recorded it: it goes ahead. */
  onChange: (key: string, options?: { first?: boolean }) => void;
  logger: Logger;
  now?: () => number;
}

export class DeploymentObserver {
  readonly #options: DeploymentObserverOptions;
  readonly #now: () => number;
  readonly #snapshots = new Map<string, Snapshot>();
  readonly #tracked = new Map<string, Tracked>();
  readonly #credentials = new Map<string, { id: string; credentials: Credentials; users: Set<string> }>();
  /** Identities prime() is listing still, each with the keys whose passes wait for it. */
  readonly #priming = new Map<string, Set<string>>();
  /** Credentials (by key) whose listing failed on the last poll. */
  #failing = new Set<string>();
  /** When the latest completed poll started: every snapshot it listed is at least that recent. */
  #lastPollStartedAt: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = true;
  /** stop() was called after a start(): a poll in flight ends without reporting its cancelled calls. */
  #halted = false;

  constructor(options: DeploymentObserverOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * A snapshot the latest completed poll took (or confirmed), or one younger than 1.5 poll intervals
   * (a reconcile's own read, before a poll covered it). Measured against the poll rather than the clock
   * alone: at N = 10,000 a poll is 100 calls, and polls start an interval after the previous one ended,
   * so a snapshot can be older than 1.5 intervals and still be the newest there is.
   */
  fresh(identity: string, deploymentId: string): Deployment | undefined {
    const snap = this.#snapshots.get(snapshotKey(identity, deploymentId));
    if (!snap) return undefined;
    const polled = this.#lastPollStartedAt !== undefined && snap.at >= this.#lastPollStartedAt;
    if (!polled && this.#now() - snap.at > this.#options.pollIntervalMs * 1.5) return undefined;
    return snap.deployment;
  }

  /** What a reconcile saw first-hand (GET, POST or PATCH response) under the credentials `identity`. */
  remember(identity: string, deployment: Deployment): void {
    this.#snapshots.set(snapshotKey(identity, deployment.id), {
      deployment: this.#keep(deployment),
      fingerprint: fingerprintOf(deployment),
      at: this.#now(),
    });
  }

  #keep(deployment: Deployment): Deployment {
    return this.#options.keep ? this.#options.keep(deployment) : deployment;
  }

  forget(identity: string, deploymentId: string): void {
    this.#snapshots.delete(snapshotKey(identity, deploymentId));
  }

  track(key: string, credentials: Credentials, deploymentId: string): void {
    // Each pass resolves its credentials anew: keep one object per credential, not one per key.
    let credentialsId = credentialsKey(credentials);
    const shared = this.#credentials.get(credentialsId);
    if (shared) {
      shared.users.add(key);
      credentialsId = shared.id; // the one copy of the id string, not this pass's
    } else {
      this.#credentials.set(credentialsId, { id: credentialsId, credentials, users: new Set([key]) });
    }
    const before = this.#tracked.get(key);
    if (before && before.credentialsId !== credentialsId) this.#release(key, before.credentialsId);
    this.#tracked.set(key, { credentialsId, deploymentId });
  }

  untrack(key: string): void {
    const tracked = this.#tracked.get(key);
    this.#tracked.delete(key);
    if (!tracked) return;
    this.#snapshots.delete(snapshotKey(tracked.credentialsId, tracked.deploymentId));
    this.#release(key, tracked.credentialsId);
  }

  #release(key: string, credentialsId: string): void {
    const shared = this.#credentials.get(credentialsId);
    shared?.users.delete(key);
    if (shared?.users.size === 0) this.#credentials.delete(credentialsId);
  }

  start(): void {
    this.#stopped = false;
    this.#halted = false;
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    this.#halted = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  /**
   * Polls start one interval apart (start to start), not an interval after the previous one ended: at
   * N = 10,000 a poll takes seconds, and each poll interval must hold one poll, no more and no fewer.
   * A poll that outlasts the interval is followed at once by the next.
   */
  #schedule(lastStartedAt?: number): void {
    if (this.#stopped) return;
    const delay =
      lastStartedAt === undefined
        ? this.#options.pollIntervalMs
        : lastStartedAt + this.#options.pollIntervalMs - this.#now();
    this.#timer = setTimeout(
      () => {
        const startedAt = this.#now();
        this.pollOnce()
          .catch((err: unknown) =>
            this.#options.logger.warn(
              { error: err instanceof Error ? err.message : String(err) },
              'batched poll failed',
            ),
          )
          .finally(() => this.#schedule(startedAt));
      },
      Math.max(0, delay),
    );
  }

  /**
   * The first listing after the workers start (a restart, a takeover): tracks every object that records
   * a deployment, and lists them all at once, ceil(n/100) calls per credential identity, each identity on
   * its own (one whose control plane hangs holds up only its own objects). Until an identity's listing
   * ends, holdUntilPrimed keeps its objects' passes back and enqueues them after, so they find fresh
   * snapshots instead of reading their deployments one GET each. An object whose deployment changed
   * since it recorded it (another latest revision than its status names, or gone) is enqueued first,
   * ahead of the unchanged ones: after a restart or a takeover, a drift is fixed first.
   */
  async prime(recorded: Iterable<RecordedDeployment>) {
    const revisions = new Map<string, string>();
    for (const r of recorded) {
      this.track(r.key, r.credentials, r.deploymentId);
      if (r.latestRevisionId) revisions.set(r.key, r.latestRevisionId);
    }
    const startedAt = this.#now();
    const groups = this.#groups();
    for (const identity of groups.keys()) this.#priming.set(identity, new Set());
    const failed = new Set<string>();
    await Promise.all(
      [...groups].map(async ([identity, group]) => {
        const changed = new Set<string>();
        try {
          if ((await this.#listGroup(identity, group, startedAt, { revisions, changed })) === 'failed')
            failed.add(identity);
        } finally {
          const held = this.#priming.get(identity) ?? new Set<string>();
          this.#priming.delete(identity);
          // Only once the listing ended: enqueued earlier, a changed object's pass would be held and
          // enqueued again behind every other.
          if (!this.#halted) {
            for (const key of changed) this.#options.onChange(key, { first: true });
            for (const key of held) this.#options.onChange(key);
          }
        }
      }),
    );
    if (this.#halted) return;
    for (const identity of failed) this.#failing.add(identity);
    // A listing of every tracked deployment: a poll, unless a regular one completed after it started.
    if ((this.#lastPollStartedAt ?? Number.NEGATIVE_INFINITY) < startedAt)
      this.#lastPollStartedAt = startedAt;
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
    const held = this.#priming.get(identity);
    held?.add(key);
    return held !== undefined;
  }

  /** One pass over every tracked deployment, ceil(n/100) list calls per credential. */
  async pollOnce(): Promise<void> {
    // A reconcile may remember a newer deployment (its PATCH answer) while this listing is in flight.
    const startedAt = this.#now();
    const failed = new Set<string>();
    for (const [groupKey, group] of this.#groups()) {
      const result = await this.#listGroup(groupKey, group, startedAt);
      if (result === 'halted') return;
      if (result === 'failed') failed.add(groupKey);
    }
    // Credentials whose listing failed this poll; any others (recovered, or gone) start afresh.
    this.#failing = failed;
    this.#lastPollStartedAt = startedAt;
  }

  /** The tracked deployments by credential identity, each with the object tracking it by id. */
  #groups(): Map<string, Group> {
    const groups = new Map<string, Group>();
    for (const [key, t] of this.#tracked) {
      const groupKey = t.credentialsId;
      const credentials = this.#credentials.get(groupKey)?.credentials;
      if (!credentials) continue;
      const group = groups.get(groupKey) ?? { credentials, keysById: new Map<string, string>() };
      group.keysById.set(t.deploymentId, key);
      groups.set(groupKey, group);
    }
    return groups;
  }

  /**
   * Lists one identity's deployments, 100 ids a call, keeping each as a snapshot and enqueueing the
   * objects whose deployment changed or vanished. Snapshots taken after `startedAt` (a reconcile's own
   * read) are newer than the listing and stay.
   */
  async #listGroup(
    groupKey: string,
    { credentials, keysById }: Group,
    startedAt: number,
    /**
     * On the first listing: the latest revision each object recorded, and where to put the objects
     * whose deployment changed since (another latest revision, or gone), to be enqueued first after.
     */
    priming?: { revisions: ReadonlyMap<string, string>; changed: Set<string> },
  ): Promise<'listed' | 'failed' | 'halted'> {
    const changedOrGone = (key: string) => {
      if (priming) priming.changed.add(key);
      else this.#options.onChange(key);
    };
    const client = this.#options.clientFor(credentials);
    const ids = [...keysById.keys()];
    let result: 'listed' | 'failed' = 'listed';
    for (let i = 0; i < ids.length; i += IDS_PER_LIST) {
      const chunk = ids.slice(i, i + IDS_PER_LIST);
      let page: Awaited<ReturnType<ControlPlaneClient['listDeployments']>>;
      try {
        page = await client.listDeployments({ deploymentIds: chunk, limit: IDS_PER_LIST });
      } catch (err) {
        // Stopped (shutdown, lost leadership) while listing: nothing to tell anyone.
        if (this.#halted) return 'halted';
        result = 'failed';
        // Ready objects wait for this poll to bring them back: when a listing starts failing, let
        // each find out first-hand (its own read fails the same way, says so in its conditions and
        // backs off). Not again on every failed poll: that would cut their backoff short.
        if (this.#failing.has(groupKey)) continue;
        this.#options.logger.warn(
          { error: err instanceof Error ? err.message : String(err), deployments: chunk.length },
          'batched poll failed; reconciling those objects',
        );
        for (const id of chunk) {
          const key = keysById.get(id);
          if (key) this.#options.onChange(key);
        }
        continue;
      }
      const seen = new Set<string>();
      for (const deployment of page.resources) {
        seen.add(deployment.id);
        const at = snapshotKey(groupKey, deployment.id);
        const before = this.#snapshots.get(at);
        if (before && before.at > startedAt) continue;
        const fingerprint = fingerprintOf(deployment);
        if (before?.fingerprint === fingerprint) {
          // Unchanged: the snapshot kept stays, confirmed. Projecting and interning it again on every
          // poll made garbage in proportion to N, polls in proportion to N while N objects converge.
          before.at = this.#now();
        } else {
          this.#snapshots.set(at, { deployment: this.#keep(deployment), fingerprint, at: this.#now() });
        }
        const key = keysById.get(deployment.id);
        if (key && before && before.fingerprint !== fingerprint) this.#options.onChange(key);
        const recorded = key && priming?.revisions.get(key);
        if (key && recorded && recorded !== deployment.latest_revision_id) changedOrGone(key);
      }
      for (const id of chunk) {
        const at = snapshotKey(groupKey, id);
        if (seen.has(id) || (this.#snapshots.get(at)?.at ?? 0) > startedAt) continue;
        // Gone (or not listed): let the object's reconcile find out first-hand.
        this.#snapshots.delete(at);
        const key = keysById.get(id);
        if (key) changedOrGone(key);
      }
    }
    return result;
  }
}
