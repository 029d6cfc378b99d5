/**
 * One listing pass serves every object that shares credentials: a snapshot of all templates (all pages)
 * per credential key, reused while it is younger than the age a reconcile accepts (its poll interval),
 * with concurrent requests for the same credentials joining the pass in flight. A failed pass is not
 * kept: the next request tries again. A listing runs under the deadline of the reconcile pass that
 * started it, and each pass waits for one at most until its own deadline: a server that answers every page
 * just inside the call deadline holds no worker past the pass deadline.
 */
import { CancelledError, UnavailableError } from '../../controlplane/errors.ts';
import type { SandboxTemplate } from '../../controlplane/schemas.ts';

export interface Snapshot {
  templates: readonly SandboxTemplate[];
  /** When the pass started (ms since the epoch): nothing older than this is in it. */
  takenAt: number;
}

export interface TemplateSnapshotsOptions {
  now?: () => number;
  /** Snapshots unused for this long are dropped (rotated credentials leave old keys behind). */
  retainMs?: number;
}

export class TemplateSnapshots {
  readonly #now: () => number;
  readonly #retainMs: number;
  readonly #done = new Map<string, Snapshot>();
  readonly #inFlight = new Map<string, Promise<Snapshot>>();

  constructor(options: TemplateSnapshotsOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#retainMs = options.retainMs ?? 30 * 60_000;
  }

  /**
   * The templates listed for `key`, at most `maxAgeMs` old; `list` runs a pass when none is fresh and
   * none is under way, given `deadline` (the caller's pass deadline). A pass under way is always fresh
   * enough: it started no earlier than now. Whoever waits, waits until its own `deadline` at most.
   */
  get(
    key: string,
    maxAgeMs: number,
    list: (deadline?: AbortSignal) => Promise<SandboxTemplate[]>,
    deadline?: AbortSignal,
  ): Promise<Snapshot> {
    const now = this.#now();
    this.#prune(now);
    const running = this.#inFlight.get(key);
    if (running) return until(running, deadline);
    const done = this.#done.get(key);
    if (done && now - done.takenAt < maxAgeMs) return Promise.resolve(done);
    const pass = (async () => {
      try {
        const snapshot = { templates: await list(deadline), takenAt: now };
        this.#done.set(key, snapshot);
        return snapshot;
      } finally {
        this.#inFlight.delete(key);
      }
    })();
    this.#inFlight.set(key, pass);
    return until(pass, deadline);
  }

  #prune(now: number) {
    for (const [key, snapshot] of this.#done) {
      if (now - snapshot.takenAt > this.#retainMs) this.#done.delete(key);
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
