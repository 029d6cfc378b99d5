/**
 * Each kind's work queue and workers, named after the kind. The queue is fair across tenants, with
 * reserve workers, and under --sharding=auto takes only this replica's share; the workers hold back the
 * objects of a namespace some informer has not listed yet.
 */
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { lazyChild } from './lib/lazy-logger.ts';
import type { OperatorMetrics } from './metrics.ts';
import { type Reconciler, type RunningController, runController } from './runtime/controller.ts';
import { splitKey } from './runtime/keys.ts';
import type { ShardedWork } from './runtime/sharded-work.ts';
import { WorkQueue } from './runtime/workqueue.ts';

/** How soon an object of a namespace not listed yet is looked at again. */
const UNSYNCED_NAMESPACE_RETRY_MS = 10_000;

/** The controller of a kind, and its work queue, are named after it in lower case, as kubebuilder names them. */
function controllerName(kind: string): string {
  return kind.toLowerCase();
}

/** A kind's work queue; `shardPrefix` names the kind's keys among the shard's (operator-shards.ts). */
export function kindQueue(
  kind: string,
  options: {
    config: Pick<Config, 'reconcileRate' | 'workers'>;
    metrics: OperatorMetrics;
    sharded: ShardedWork | undefined;
    shardPrefix: string;
    /** A key's tenant, from the kind's controller once it runs. */
    tenantOf: (key: string) => string | undefined;
  },
): WorkQueue {
  const { config, metrics, sharded, shardPrefix } = options;
  const queue = new WorkQueue({
    ...(sharded ? { admit: (key: string) => sharded.admits(shardPrefix, key) } : {}),
    qps: config.reconcileRate,
    burst: config.reconcileRate * 2,
    metrics: metrics.runtime.queue(controllerName(kind)),
    // One tenant (credential identity), and one namespace, holds at most half the shared workers (more
    // only while others sit idle); the reserve workers start only tenants with nothing in flight.
    tenantOf: options.tenantOf,
    maxPerTenant: Math.ceil(config.workers / 2),
    sharedSlots: config.workers,
  });
  metrics.runtime.watchQueue(controllerName(kind), queue);
  return queue;
}

/**
 * Runs a kind's workers with its controller metrics. Objects of a namespace some informer has not
 * listed yet wait (their Secrets would look missing).
 */
export function startKindWorkers(
  kind: string,
  queue: WorkQueue,
  workers: number,
  passDeadlineMs: number,
  logger: Logger,
  metrics: OperatorMetrics,
  reconcile: Reconciler,
  namespaceReady: (namespace: string) => boolean,
): RunningController {
  const controller = controllerName(kind);
  return runController({
    name: controller,
    queue,
    workers,
    passDeadlineMs,
    logger,
    metrics: metrics.runtime.controller(controller),
    reconcile: async (key, ctx) => {
      const { namespace, name } = splitKey(key);
      if (!namespaceReady(namespace)) return { requeueAfterMs: UNSYNCED_NAMESPACE_RETRY_MS };
      return reconcile(key, { ...ctx, log: lazyChild(ctx.log, () => ({ kind, namespace, name })) });
    },
  });
}
