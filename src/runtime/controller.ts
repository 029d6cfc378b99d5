import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { sleep } from './clock.ts';
import type { WorkQueue } from './workqueue.ts';

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

export interface ControllerOptions {
  name: string;
  queue: WorkQueue;
  reconcile: Reconciler;
  workers: number;
  logger: Logger;
  /** Spreads requeues so objects created together do not poll together; default +-10%. */
  jitter?: (ms: number) => number;
  /** The longest a pass may spend on outside calls (ReconcileContext.deadline). Default 2 minutes. */
  passDeadlineMs?: number;
}

export interface RunningController {
  /** Stops taking work, aborts in-flight reconciles after graceMs, and waits for them. */
  stop(graceMs: number): Promise<void>;
}

export const DEFAULT_PASS_DEADLINE_MS = 120_000;

export function tenPercentJitter(ms: number): number {
  return Math.round(ms * (0.9 + Math.random() * 0.2));
}

export function runController(options: ControllerOptions): RunningController {
  const { name, queue, reconcile, logger } = options;
  const jitter = options.jitter ?? tenPercentJitter;
  const passDeadlineMs = options.passDeadlineMs ?? DEFAULT_PASS_DEADLINE_MS;
  const log = logger.child({ controller: name });
  const inFlight = new Set<AbortController>();

  async function processOne(key: string): Promise<void> {
    const abort = new AbortController();
    inFlight.add(abort);
    const reconcileLog = log.child({ key, reconcileId: randomUUID() });
    const deadline = AbortSignal.any([abort.signal, AbortSignal.timeout(passDeadlineMs)]);
    try {
      const result = await reconcile(key, { signal: abort.signal, deadline, log: reconcileLog });
      queue.forget(key);
      if (result.requeueAfterMs !== undefined) {
        queue.addAfter(key, jitter(result.requeueAfterMs), { first: result.continuing });
      }
    } catch (err) {
      // Message only: error objects from HTTP clients can carry request headers.
      reconcileLog.error({ error: err instanceof Error ? err.message : String(err) }, 'reconcile failed');
      queue.addRateLimited(key, retryAfterOf(err));
    } finally {
      inFlight.delete(abort);
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

  const workers = Array.from({ length: Math.max(1, options.workers) }, () => worker());
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
