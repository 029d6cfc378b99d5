/**
 * Metrics by controller-runtime's names, labels and meaning (controller_runtime_*, workqueue_*,
 * rest_client_requests_total), so the dashboards and alerts people keep for controller-runtime operators
 * (kubebuilder's generated dashboard among them) read this controller unchanged. One controller per kind,
 * named after it in lower case (`agentdeployment`), and its work queue bears the same name.
 */
import { Counter, Gauge, Histogram, type Registry } from '../lib/prom-client.ts';
import { type ControllerMetrics, RECONCILE_RESULTS } from './controller.ts';
import type { WorkQueueMetrics } from './workqueue.ts';

/** controller-runtime's buckets for controller_runtime_reconcile_time_seconds. */
const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25,
  1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
/** client-go's work-queue buckets: 10 ns to 1,000 s, ten times apart. */
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000];

/** What the queue gauges read of a queue when scraped. */
export interface ObservedQueue {
  depth(): number;
  inFlightAges(): number[];
}

export class RuntimeMetrics {
  readonly #queues = new Map<string, ObservedQueue>();
  readonly #reconciles: Counter<'controller' | 'result'>;
  readonly #reconcileErrors: Counter<'controller'>;
  readonly #reconcileTime: Histogram<'controller'>;
  readonly #maxConcurrent: Gauge<'controller'>;
  readonly #activeWorkers: Gauge<'controller'>;
  readonly #adds: Counter<'name' | 'controller'>;
  readonly #queueDuration: Histogram<'name' | 'controller'>;
  readonly #workDuration: Histogram<'name' | 'controller'>;
  readonly #retries: Counter<'name' | 'controller'>;
  readonly #restRequests: Counter<'code' | 'method' | 'host'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#reconciles = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.#reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.#reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_TIME_BUCKETS,
      registers,
    });
    this.#maxConcurrent = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    this.#activeWorkers = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });
    const queues = this.#queues;
    /** A gauge per queue, computed from the queue when scraped. */
    const queueGauge = (name: string, help: string, read: (queue: ObservedQueue) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['name', 'controller'],
        registers,
        collect() {
          for (const [queueName, queue] of queues) {
            this.set({ name: queueName, controller: queueName }, read(queue));
          }
        },
      });
    queueGauge('workqueue_depth', 'Current depth of workqueue', (queue) => queue.depth());
    queueGauge(
      'workqueue_unfinished_work_seconds',
      "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
      (queue) => queue.inFlightAges().reduce((sum, ms) => sum + ms, 0) / 1000,
    );
    queueGauge(
      'workqueue_longest_running_processor_seconds',
      'How many seconds has the longest running processor for workqueue been running.',
      (queue) => Math.max(0, ...queue.inFlightAges()) / 1000,
    );
    this.#adds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    });
    this.#queueDuration = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name', 'controller'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.#workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: ['name', 'controller'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.#retries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    });
    this.#restRequests = new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
      registers,
    });
  }

  /** The hooks of the controller `name`: every result series starts at 0 when its workers start. */
  controller(name: string): ControllerMetrics {
    const controller = name;
    return {
      started: (workers) => {
        this.#maxConcurrent.set({ controller }, workers);
        this.#activeWorkers.set({ controller }, 0);
        for (const result of RECONCILE_RESULTS) this.#reconciles.inc({ controller, result }, 0);
        this.#reconcileErrors.inc({ controller }, 0);
      },
      activeWorkers: (count) => this.#activeWorkers.set({ controller }, count),
      reconciled: (result, seconds) => {
        this.#reconciles.inc({ controller, result });
        if (result === 'error') this.#reconcileErrors.inc({ controller });
        this.#reconcileTime.observe({ controller }, seconds);
      },
    };
  }

  /** The hooks of the work queue `name`; its counters start at 0 so a quiet queue has its series. */
  queue(name: string): WorkQueueMetrics {
    const labels = { name, controller: name };
    this.#adds.inc(labels, 0);
    this.#retries.inc(labels, 0);
    return {
      added: () => this.#adds.inc(labels),
      handedOut: (waitMs) => this.#queueDuration.observe(labels, waitMs / 1000),
      finished: (workMs) => this.#workDuration.observe(labels, workMs / 1000),
      retried: () => this.#retries.inc(labels),
    };
  }

  /** The queue whose depth and in-flight work the gauges of `name` read when scraped. */
  watchQueue(name: string, queue: ObservedQueue): void {
    this.#queues.set(name, queue);
  }

  /** Counts one request to the API server `host` (host:port) by method and status code ('<error>': none). */
  restClientRequest(host: string, method: string, code: string): void {
    this.#restRequests.inc({ code, method, host });
  }
}
