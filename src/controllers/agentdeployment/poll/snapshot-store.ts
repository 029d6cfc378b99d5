/**
 * The deployment snapshots the batched poll and the reconciles' own reads keep (observer.ts), keyed by
 * credential identity and id: what one control plane says can only ever be read back under the
 * credentials that asked it. Each is charged to its object's namespace (snapshot-budget.ts): one that
 * does not fit is not held. Also which answers were over the size bound, or past the budget, so that
 * their objects are told once, not on every poll.
 */
import { createHash } from 'node:crypto';
import type { BudgetExceededError } from '../../../controlplane/errors.ts';
import type { Deployment } from '../../../controlplane/schemas.ts';
import { canonicalJson } from '../../../lib/canonical-json.ts';
import { configurationOf } from '../../../reconcile/agentdeployment/observation.ts';
import { joinKey, splitKey } from '../../../runtime/keys.ts';
import { type Charge, type SnapshotBudget, snapshotBytes } from './snapshot-budget.ts';

export interface Snapshot extends Charge {
  deployment: Deployment;
  /** A digest of the deployment as listed, to tell a change: not the JSON itself, 10,000 of which add up. */
  fingerprint: string;
  /** configurationDigest of the deployment: computed once per change, compared on every poll. */
  configuration: string;
  at: number;
  /**
   * The digest of the listing page (pageDigest) this snapshot was last taken or confirmed from; unset
   * when it was taken from anything else since (a reconcile's own read).
   */
  page: string | undefined;
}

export const snapshotKey = (identity: string, deploymentId: string) => joinKey(identity, deploymentId);

export const fingerprintOf = (deployment: Deployment): string =>
  createHash('sha256').update(JSON.stringify(deployment)).digest('base64');

/**
 * A digest of what the spec sets of a deployment (observation.ts): the deployment a pass judged in sync
 * with its spec is tracked by it, and a poll that lists another configuration enqueues the object.
 */
export const configurationDigest = (deployment: Deployment): string =>
  createHash('sha256')
    .update(canonicalJson(configurationOf(deployment)))
    .digest('base64');

/** A listing page's answer as it was read, with the ids it asked for. */
export const pageDigest = (ids: readonly string[], text: string): string =>
  createHash('sha256').update(ids.join(',')).update('\n').update(text).digest('base64');

export class SnapshotStore {
  readonly #budget: SnapshotBudget;
  readonly #keep: (deployment: Deployment) => Deployment;
  readonly #now: () => number;
  readonly #snapshots = new Map<string, Snapshot>();
  /** Snapshot keys of deployments whose answer alone is over the size bound: listed alone, told once. */
  readonly #overSize = new Set<string>();
  /** Snapshot keys of deployments past their namespace's budget: not held, their objects told once. */
  readonly #overBudget = new Set<string>();

  constructor(budget: SnapshotBudget, keep: (deployment: Deployment) => Deployment, now: () => number) {
    this.#budget = budget;
    this.#keep = keep;
    this.#now = now;
  }

  get(at: string): Snapshot | undefined {
    return this.#snapshots.get(at);
  }

  /**
   * Keeps `deployment` as the snapshot `at` for the object `key` if it fits in the budget of the
   * object's namespace (the one place a snapshot is stored); if not, nothing of it stays.
   */
  hold(
    at: string,
    key: string,
    deployment: Deployment,
    fingerprint: string,
    before = this.#snapshots.get(at),
  ): true | BudgetExceededError {
    const kept = this.#keep(deployment);
    // Unchanged, it weighs what it weighed: a steady poll measures nothing.
    const bytes = before?.fingerprint === fingerprint ? before.bytes : snapshotBytes(kept);
    const { namespace } = splitKey(key);
    const account = this.#budget.charge(namespace, bytes, before);
    if (!account) {
      this.#snapshots.delete(at);
      return this.#budget.exceeded(namespace, deployment.id, bytes);
    }
    this.#overBudget.delete(at);
    this.#snapshots.set(at, {
      deployment: kept,
      fingerprint,
      configuration:
        before?.fingerprint === fingerprint ? before.configuration : configurationDigest(deployment),
      account,
      bytes,
      at: this.#now(),
      page: undefined,
    });
    return true;
  }

  /** The snapshot goes, and its room in its namespace's budget with it. */
  drop(at: string): void {
    const snapshot = this.#snapshots.get(at);
    if (!snapshot) return;
    this.#snapshots.delete(at);
    this.#budget.release(snapshot);
  }

  /** Nothing of `at` is kept any more: its snapshot, and what was said of its size. */
  forget(at: string): void {
    this.drop(at);
    this.#overSize.delete(at);
    this.#overBudget.delete(at);
  }

  isOverSize(at: string): boolean {
    return this.#overSize.has(at);
  }

  /** Marks `at`'s answer as over the size bound; true when it was not marked yet (tell its object). */
  markOverSize(at: string): boolean {
    if (this.#overSize.has(at)) return false;
    this.#overSize.add(at);
    return true;
  }

  clearOverSize(at: string): void {
    this.#overSize.delete(at);
  }

  /** Marks `at` as past its namespace's budget; true when it was not marked yet (tell its object). */
  markOverBudget(at: string): boolean {
    if (this.#overBudget.has(at)) return false;
    this.#overBudget.add(at);
    return true;
  }
}
