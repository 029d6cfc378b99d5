/**
 * The bytes of deployment snapshots the batched poll may hold for the objects of one namespace (issue
 * 32): a namespace's own control plane can answer every id with a deployment just under the answer's
 * size bound, and many objects then hold far more than the controller's memory limit. Charged to the
 * namespace of the object a snapshot is for, whichever credentials read it (the controller's own are
 * shared by many namespaces: one namespace's big deployments must not take another's room). A snapshot
 * that does not fit is not held, and its object waits with BudgetExceeded naming the setting.
 *
 * A snapshot's size is the UTF-8 length of the JSON of what is kept of it (the deployment reduced to the
 * fields the controller reads): consistent whatever the server adds, and close to what the heap holds.
 */
import { BudgetExceededError } from '../../../controlplane/errors.ts';

export const NAMESPACE_DEPLOYMENT_BUDGET_SETTING = '--namespace-deployment-budget';
export const DEFAULT_NAMESPACE_DEPLOYMENT_BUDGET = 32 * 1024 * 1024;

/** The size a snapshot is charged: the UTF-8 bytes of its JSON. */
export const snapshotBytes = (kept: unknown): number => Buffer.byteLength(JSON.stringify(kept));

/** What one namespace's snapshots weigh together. */
export interface Account {
  readonly namespace: string;
  used: number;
}

/** What one snapshot is charged (the snapshot itself carries it: no record per snapshot here). */
export interface Charge {
  readonly account: Account;
  readonly bytes: number;
}

export class SnapshotBudget {
  readonly limit: number;
  readonly #accounts = new Map<string, Account>();

  constructor(limit = DEFAULT_NAMESPACE_DEPLOYMENT_BUDGET) {
    this.limit = limit;
  }

  /**
   * Charges `bytes` to `namespace` in place of `before` (what the same snapshot was charged until now,
   * released either way): the account to keep with the snapshot, or undefined when the bytes would pass
   * the namespace's limit (then nothing is charged for it).
   */
  charge(namespace: string, bytes: number, before?: Charge): Account | undefined {
    if (before) this.release(before);
    const account = this.#accounts.get(namespace) ?? { namespace, used: 0 };
    if (account.used + bytes > this.limit) return undefined;
    account.used += bytes;
    this.#accounts.set(namespace, account);
    return account;
  }

  /** Frees what a snapshot was charged; call once per charge, when the snapshot goes. */
  release(charge: Charge): void {
    charge.account.used -= charge.bytes;
    if (charge.account.used <= 0) this.#accounts.delete(charge.account.namespace);
  }

  /** Bytes held for `namespace`. */
  used(namespace: string): number {
    return this.#accounts.get(namespace)?.used ?? 0;
  }

  /** What an object whose deployment did not fit reads (its condition's message). */
  exceeded(namespace: string, deploymentId: string, bytes: number): BudgetExceededError {
    return new BudgetExceededError(
      'getDeployment',
      `deployment ${deploymentId} (${bytes} bytes) does not fit in the ${this.limit} bytes of deployment snapshots held for namespace ${namespace} (${NAMESPACE_DEPLOYMENT_BUDGET_SETTING})`,
      'nothing of it is held',
    );
  }
}
