/**
 * One listing pass serves every object that shares credentials: a snapshot of all templates (all pages)
 * per credential key, reused while it is younger than the age a reconcile accepts (its poll interval),
 * with concurrent requests for the same credentials joining the pass in flight. A failed pass is not
 * kept: the next request tries again. A listing runs under the deadline of the reconcile pass that
 * started it, and each pass waits for one at most until its own deadline: a server that answers every page
 * just inside the call deadline holds no worker past the pass deadline.
 *
 * What a namespace's credentials Secrets make the controller hold is bounded (issue 32): the snapshots
 * of the identities a namespace's objects read together stay within its byte budget; a listing for it
 * may read only what is left, and a snapshot past it is refused with BudgetExceeded naming the setting.
 * The controller's own credentials are not counted.
 */
import { BudgetExceededError, CancelledError, UnavailableError } from '../../controlplane/errors.ts';
import type { SandboxTemplate } from '../../controlplane/template-schemas.ts';
import { WALK_MAX_BYTES } from '../../controlplane/transport.ts';

export interface Snapshot {
  templates: readonly SandboxTemplate[];
  /** When the pass started (ms since the epoch): nothing older than this is in it. */
  takenAt: number;
  /** The templates' size as JSON: what the snapshot is charged against a namespace's budget. */
  bytes: number;
}

export interface TemplateSnapshotsOptions {
  now?: () => number;
  /** Snapshots unused for this long are dropped (rotated credentials leave old keys behind). */
  retainMs?: number;
  /** Bytes of snapshots one namespace's credentials Secrets may have held. Default 16 MiB. */
  namespaceBudgetBytes?: number;
}

export const NAMESPACE_TEMPLATE_BUDGET_SETTING = '--namespace-template-budget';
export const DEFAULT_NAMESPACE_TEMPLATE_BUDGET = 16 * 1024 * 1024;

/**
 * Lists every template; `maxBytes`, when set, bounds the bytes its pages may read; `deadline` is the pass
 * deadline of the pass that started the listing.
 */
export type ListTemplates = (maxBytes?: number, deadline?: AbortSignal) => Promise<SandboxTemplate[]>;

export class TemplateSnapshots {
  readonly #now: () => number;
  readonly #retainMs: number;
  readonly #budget: number;
  readonly #done = new Map<string, Snapshot>();
  readonly #inFlight = new Map<string, Promise<Snapshot>>();
  /** Per namespace, the bytes of each snapshot (by key) its objects read. */
  readonly #charged = new Map<string, Map<string, number>>();

  constructor(options: TemplateSnapshotsOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#retainMs = options.retainMs ?? 30 * 60_000;
    this.#budget = options.namespaceBudgetBytes ?? DEFAULT_NAMESPACE_TEMPLATE_BUDGET;
  }

  /**
   * The templates listed for `key`, at most `maxAgeMs` old; `list` runs a pass when none is fresh and
   * none is under way, given `deadline` (the caller's pass deadline). A pass under way is always fresh
   * enough: it started no earlier than now. Whoever waits, waits until its own `deadline` at most.
   * `namespace`: the one whose credentials Secret named the credentials, charged for the snapshot.
   */
  async get(
    key: string,
    maxAgeMs: number,
    list: ListTemplates,
    namespace?: string,
    deadline?: AbortSignal,
  ): Promise<Snapshot> {
    const now = this.#now();
    this.#prune(now);
    const running = this.#inFlight.get(key);
    const done = this.#done.get(key);
    const snapshot = running
      ? until(running, deadline)
      : done && now - done.takenAt < maxAgeMs
        ? done
        : this.#pass(key, now, list, namespace, deadline);
    const taken = await snapshot;
    if (namespace !== undefined) this.#charge(namespace, key, taken.bytes);
    return taken;
  }

  #pass(
    key: string,
    now: number,
    list: ListTemplates,
    namespace: string | undefined,
    deadline: AbortSignal | undefined,
  ): Promise<Snapshot> {
    const left = namespace === undefined ? undefined : this.#budget - this.#others(namespace, key);
    const pass = (async () => {
      try {
        if (left !== undefined && left <= 0) throw this.#overBudget(namespace as string);
        let templates: SandboxTemplate[];
        try {
          templates = await list(left !== undefined && left < WALK_MAX_BYTES ? left : undefined, deadline);
        } catch (err) {
          // The walk stopped at what the namespace had left: its budget, not the listing's bound.
          if (err instanceof BudgetExceededError && left !== undefined && left < WALK_MAX_BYTES) {
            throw this.#overBudget(namespace as string);
          }
          throw err;
        }
        const snapshot = { templates, takenAt: now, bytes: Buffer.byteLength(JSON.stringify(templates)) };
        this.#done.set(key, snapshot);
        return snapshot;
      } finally {
        this.#inFlight.delete(key);
      }
    })();
    this.#inFlight.set(key, pass);
    return until(pass, deadline);
  }

  /** Bytes of the snapshots other than `key` that `namespace` is charged for. */
  #others(namespace: string, key: string): number {
    let sum = 0;
    for (const [other, bytes] of this.#charged.get(namespace) ?? []) if (other !== key) sum += bytes;
    return sum;
  }

  #charge(namespace: string, key: string, bytes: number): void {
    if (this.#others(namespace, key) + bytes > this.#budget) throw this.#overBudget(namespace);
    let charged = this.#charged.get(namespace);
    if (charged === undefined) {
      charged = new Map();
      this.#charged.set(namespace, charged);
    }
    charged.set(key, bytes);
  }

  #overBudget(namespace: string): BudgetExceededError {
    return new BudgetExceededError(
      'listAllSandboxTemplates',
      `the sandbox template listings held for the credentials Secrets of namespace ${namespace} would pass its ${this.#budget} bytes (${NAMESPACE_TEMPLATE_BUDGET_SETTING})`,
      'nothing more is held for it',
    );
  }

  #prune(now: number) {
    for (const [key, snapshot] of this.#done) {
      if (now - snapshot.takenAt <= this.#retainMs) continue;
      this.#done.delete(key);
      for (const [namespace, charged] of this.#charged) {
        charged.delete(key);
        if (charged.size === 0) this.#charged.delete(namespace);
      }
    }
  }
}

/** `pass`, or the deadline's error when `deadline` aborts first (the listing goes on for the others). */
function until(pass: Promise<Snapshot>, deadline: AbortSignal | undefined): Promise<Snapshot> {
  if (!deadline) return pass;
  const operation = 'listAllSandboxTemplates';
  const ended = () =>
    deadline.reason instanceof DOMException && deadline.reason.name === 'TimeoutError'
      ? new UnavailableError(operation, 'the reconcile pass reached its deadline')
      : new CancelledError(operation);
  if (deadline.aborted) return Promise.reject(ended());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(ended());
    deadline.addEventListener('abort', onAbort, { once: true });
    pass.then(resolve, reject).finally(() => deadline.removeEventListener('abort', onAbort));
  });
}
