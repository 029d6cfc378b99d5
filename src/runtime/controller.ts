import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ConflictError } from '../kube/errors.ts';
import { AbortScope } from '../lib/abort-scope.ts';
import { lazyChild } from '../lib/lazy-logger.ts';
import { sleep } from './clock.ts';
import type { WorkQueue } from './workqueue.ts';
import { WriteFenced } from './write-fence.ts';

export interface ReconcileContext {
  /** Aborted when the controller stops and the grace period is over. */
  signal: AbortSignal;
  /**
   * Aborted as `signal`, or when the pass has run for the controller's pass deadline: for calls to
   * servers a tenant chooses (control plane, agent server), so no pass holds a worker for hours. Writes to
   * Kubernetes use `signal`, so a pass that ran out of time still records why.
   */
  deadline: AbortSignal;
  /** Carries the controller name, the key and a reconcile id. */
  log: Logger;
}

export interface ReconcileResult {
  /** Reconcile this key again after about this long (jittered). */
  requeueAfterMs?: number;
  /** The object is mid-change (following a revision): its next pass goes ahead of objects not started. */
  continuing?: boolean;
}

export type Reconciler = (key: string, ctx: ReconcileContext) => Promise<ReconcileResult>;

/**
 * How a reconcile ended, in controller-runtime's words: `requeue_after` asked to come back after a time;
 * `error` threw (the key goes back with backoff); `requeue` is a requeue with backoff but no error, which
 * no reconciler here asks for (the label exists so dashboards find every series).
 */
export const RECONCILE_RESULTS = ['success', 'error', 'requeue', 'requeue_after'] as const;
export type ReconcileResultLabel = (typeof RECONCILE_RESULTS)[number];

/** What a controller reports as it works (controller_runtime_* metrics). */
export interface ControllerMetrics {
  /** Called once as the workers start, with their number. */
  started(workers: number): void;
  /** Workers busy with a key right now. */
  activeWorkers(count: number): void;
  /** One reconcile ended, after this many seconds. */
  reconciled(result: ReconcileResultLabel, seconds: number): void;
}

export interface ControllerOptions {
  name: string;
  queue: WorkQueue;
  reconcile: Reconciler;
  workers: number;
  logger: Logger;
  /** Spreads requeues so objects created together do not poll together; default up to 10% later. */
  jitter?: (ms: number) => number;
  /** The longest a pass may spend on outside calls (ReconcileContext.deadline). Default 2 minutes. */
  passDeadlineMs?: number;
  metrics?: ControllerMetrics;
  /** Seconds since some fixed point, for reconcile durations (default: performance.now). */
  now?: () => number;
}

export interface RunningController {
  /** Stops taking work, aborts in-flight reconciles after graceMs, and waits for them. */
  stop(graceMs: number): Promise<void>;
}

export const DEFAULT_PASS_DEADLINE_MS = 120_000;

/**
 * Up to 10% later, never sooner, as client-go's wait.Jitter: a pass that asked to come back once a
 * revision had time to run (REVISION_POLL_INTERVAL) must not look a little before, find it still running
 * and pay for a second look.
 */
export function tenPercentJitter(ms: number): number {
  return Math.round(ms * (1 + Math.random() * 0.1));
}

export function runController(options: ControllerOptions): RunningController {
  const { name, queue, reconcile, logger, metrics } = options;
  const jitter = options.jitter ?? tenPercentJitter;
  const passDeadlineMs = options.passDeadlineMs ?? DEFAULT_PASS_DEADLINE_MS;
  const now = options.now ?? (() => performance.now() / 1000);
  const log = logger.child({ controller: name });
  const inFlight = new Set<AbortController>();

  async function processOne(key: string): Promise<void> {
    const abort = new AbortController();
    inFlight.add(abort);
    metrics?.activeWorkers(inFlight.size);
    const reconcileLog = lazyChild(log, () => ({ key, reconcileId: randomUUID() }));
    const deadline = new AbortScope([abort.signal], passDeadlineMs);
    const startedAt = now();
    try {
      const result = await reconcile(key, {
        signal: abort.signal,
        deadline: deadline.signal,
        log: reconcileLog,
      });
      queue.forget(key);
      if (result.requeueAfterMs !== undefined) {
        queue.addAfter(key, jitter(result.requeueAfterMs), { first: result.continuing });
      }
      metrics?.reconciled(
        result.requeueAfterMs === undefined ? 'success' : 'requeue_after',
        now() - startedAt,
      );
    } catch (err) {
      metrics?.reconciled('error', now() - startedAt);
      // Message only: error objects from HTTP clients can carry request headers.
      const error = err instanceof Error ? err.message : String(err);
      // A status computed from a version the object has moved on from is refused (objects.ts,
      // patchStatus): an expected race, not a fault; the pass runs again on the new version.
      if (err instanceof ConflictError) reconcileLog.info({ error }, 'object changed during the pass; again');
      else if (err instanceof WriteFenced) reconcileLog.info({ error }, 'write fenced; nothing sent');
      else reconcileLog.error({ error }, 'reconcile failed');
      queue.addRateLimited(key, retryAfterOf(err));
    } finally {
      deadline.end();
      inFlight.delete(abort);
      metrics?.activeWorkers(inFlight.size);
      queue.done(key);
    }
  }

  async function worker(): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      await processOne(key);
    }
  }

  const workerCount = Math.max(1, options.workers);
  metrics?.started(workerCount);
  const workers = Array.from({ length: workerCount }, () => worker());
  const allDone = Promise.all(workers).then(() => undefined);
  log.info({ workers: workers.length }, 'controller started');

  return {
    async stop(graceMs: number): Promise<void> {
      queue.shutdown();
      const grace = new AbortController();
      await Promise.race([allDone, sleep(graceMs, grace.signal)]);
      grace.abort();
      for (const abort of inFlight) abort.abort(new Error(`controller ${name} stopping`));
      await allDone;
      log.info('controller stopped');
    },
  };
}

/** A pause the failed call was asked to take (e.g. a 429's Retry-After), when the error carries one. */
function retryAfterOf(err: unknown): number {
  const ms = (err as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms : 0;
}
