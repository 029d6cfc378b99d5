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
import { BudgetExceededError } from '../../controlplane/errors.ts';

export const NAMESPACE_DEPLOYMENT_BUDGET_SETTING = '--namespace-deployment-budget';
export const DEFAULT_NAMESPACE_DEPLOYMENT_BUDGET = 32 * 1024 * 1024;

/** The size a snapshot is charged: the UTF-8 bytes of its JSON. */
export const snapshotBytes = (kept: unknown): number => Buffer.byteLength(JSON.stringify(kept));

export class SnapshotBudget {
  readonly limit: number;
  /** Per snapshot key, the namespace it is charged to and its bytes. */
  readonly #charges = new Map<string, { namespace: string; bytes: number }>();
  readonly #used = new Map<string, number>();

  constructor(limit = DEFAULT_NAMESPACE_DEPLOYMENT_BUDGET) {
    this.limit = limit;
  }

  /**
   * Charges `bytes` for the snapshot `key` to `namespace`, in place of what `key` was charged before.
   * False, with nothing charged for `key` any more, when that would pass the namespace's limit.
   */
  charge(namespace: string, key: string, bytes: number): boolean {
    this.release(key);
    const used = this.#used.get(namespace) ?? 0;
    if (used + bytes > this.limit) return false;
    this.#charges.set(key, { namespace, bytes });
    this.#used.set(namespace, used + bytes);
    return true;
  }

  release(key: string): void {
    const charge = this.#charges.get(key);
    if (!charge) return;
    this.#charges.delete(key);
    const left = (this.#used.get(charge.namespace) ?? 0) - charge.bytes;
    if (left > 0) this.#used.set(charge.namespace, left);
    else this.#used.delete(charge.namespace);
  }

  /** Bytes held for `namespace`. */
  used(namespace: string): number {
    return this.#used.get(namespace) ?? 0;
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
