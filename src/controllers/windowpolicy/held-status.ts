/**
 * Which objects each DeploymentWindowPolicy holds now, from what the AgentDeployment passes report, and
 * its status written from it: at most once per change, a debounce per policy gathering the reports of
 * many passes into one status patch, and none when the status already says it (policy-status.ts).
 * Writes only while started (the leader's work; under --sharding=auto no replica sees every object, so
 * none writes it), and only a policy whose every object it sees (mayWrite: a release watching some
 * namespaces writes those policies only that select none beyond them).
 */
import type { Logger } from 'pino';
import type { DeploymentWindowPolicy } from '../../api/deployment-window-policy.ts';
import { DEPLOYMENT_WINDOW_POLICY, GROUP, VERSION } from '../../api/group.ts';
import { policyStatus, sameStatus } from './policy-status.ts';

/** How long reports are gathered before a policy's status is written. */
export const DEFAULT_DEBOUNCE_MS = 2_000;

export const POLICY_RESOURCE = { group: GROUP, version: VERSION, plural: DEPLOYMENT_WINDOW_POLICY.plural };

export interface PolicyHoldsOptions {
  /** The cached policy of a name (undefined: gone, nothing written). */
  policyOf(name: string): DeploymentWindowPolicy | undefined;
  /** Whether this controller sees every object the policy selects (else its count is not the whole). */
  mayWrite?(policy: DeploymentWindowPolicy): boolean;
  /** Merge-patches the policy's status. */
  writeStatus(policy: DeploymentWindowPolicy, status: Record<string, unknown>): Promise<void>;
  logger: Logger;
  debounceMs?: number;
  now?: () => Date;
}

export class PolicyHolds {
  readonly #options: PolicyHoldsOptions;
  /** Object key -> the policies holding it now. */
  readonly #byKey = new Map<string, ReadonlySet<string>>();
  /** The objects held now by windows of their own. */
  readonly #byOwn = new Set<string>();
  /** Policy name -> the objects it holds now. */
  readonly #byPolicy = new Map<string, Set<string>>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #started = false;

  constructor(options: PolicyHoldsOptions) {
    this.#options = options;
  }

  /**
   * A pass's finding: the policies holding the object's change now (none: empty), and whether its own
   * windows hold it too.
   */
  report(key: string, policies: readonly string[], own = false): void {
    if (own) this.#byOwn.add(key);
    else this.#byOwn.delete(key);
    const before = this.#byKey.get(key) ?? new Set<string>();
    const after = new Set(policies);
    if (after.size) this.#byKey.set(key, after);
    else this.#byKey.delete(key);
    for (const name of before) {
      if (after.has(name)) continue;
      this.#byPolicy.get(name)?.delete(key);
      this.changed(name);
    }
    for (const name of after) {
      if (before.has(name)) continue;
      const held = this.#byPolicy.get(name) ?? new Set<string>();
      this.#byPolicy.set(name, held);
      held.add(key);
      this.changed(name);
    }
  }

  /** The object is gone. */
  forget(key: string): void {
    this.report(key, []);
  }

  /** How many objects are held now, by windows of their own and by policies' (one may count in both). */
  heldCounts(): { object: number; policy: number } {
    return { object: this.#byOwn.size, policy: this.#byKey.size };
  }

  /** The policy (or what it holds) changed: its status is written after the debounce. */
  changed(name: string): void {
    if (!this.#started || this.#timers.has(name)) return;
    const timer = setTimeout(() => {
      this.#timers.delete(name);
      void this.#flush(name);
    }, this.#options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
    timer.unref();
    this.#timers.set(name, timer);
  }

  /** Writes from now on; `names`: the policies to look at first (every cached one). */
  start(names: readonly string[]): void {
    this.#started = true;
    for (const name of names) this.changed(name);
  }

  stop(): void {
    this.#started = false;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  async #flush(name: string): Promise<void> {
    const policy = this.#options.policyOf(name);
    if (!policy) {
      this.#byPolicy.delete(name);
      return;
    }
    if (this.#options.mayWrite && !this.#options.mayWrite(policy)) return;
    const held = this.#byPolicy.get(name) ?? new Set<string>();
    const status = policyStatus(policy, held, this.#options.now?.() ?? new Date());
    if (sameStatus(policy.status, status)) return;
    try {
      await this.#options.writeStatus(policy, status);
    } catch (err) {
      this.#options.logger.warn(
        { policy: name, error: err instanceof Error ? err.message : String(err) },
        'DeploymentWindowPolicy status not written; tried again',
      );
      this.changed(name);
    }
  }
}
