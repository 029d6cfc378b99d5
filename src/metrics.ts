/**
 * The operator's Prometheus metrics, on a registry of its own (no global state: tests run several
 * operators in one process). Served at /metrics by http.ts.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface ConditionedObject {
  status?: { conditions?: ReadonlyArray<{ type: string; status: string }> };
}

const TRACKED_CONDITIONS = ['Ready', 'Stalled', 'Paused', 'Reconciling', 'Drifted'] as const;

export class OperatorMetrics {
  readonly registry = new Registry();

  readonly reconciles = new Counter({
    name: 'agent_operator_reconcile_total',
    help: 'Reconciles by kind and result (success, requeue, error).',
    labelNames: ['kind', 'result'] as const,
    registers: [this.registry],
  });

  readonly reconcileDuration = new Histogram({
    name: 'agent_operator_reconcile_duration_seconds',
    help: 'Duration of one reconcile pass.',
    labelNames: ['kind'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly queueWait = new Histogram({
    name: 'agent_operator_workqueue_wait_seconds',
    help: 'Time a key waited in the work queue before a worker took it.',
    labelNames: ['kind'] as const,
    buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60],
    registers: [this.registry],
  });

  readonly retries = new Counter({
    name: 'agent_operator_workqueue_retries_total',
    help: 'Keys requeued with backoff after a failed reconcile.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly controlPlaneRequests = new Counter({
    name: 'agent_operator_controlplane_requests_total',
    help: 'Control-plane requests by operation and HTTP status code (error: no response).',
    labelNames: ['operation', 'code'] as const,
    registers: [this.registry],
  });

  readonly controlPlaneLatency = new Histogram({
    name: 'agent_operator_controlplane_request_duration_seconds',
    help: 'Latency of control-plane requests by operation.',
    labelNames: ['operation'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly leader = new Gauge({
    name: 'agent_operator_leader',
    help: '1 while this replica leads (runs reconciles), else 0.',
    registers: [this.registry],
  });

  readonly #queueDepths = new Map<string, () => number>();
  #namespaceStates: () => readonly { namespace: string; informer: string; synced: boolean }[] = () => [];
  readonly #objectSources = new Map<string, () => readonly ConditionedObject[]>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const queueDepths = this.#queueDepths;
    const objectSources = this.#objectSources;
    const namespaceStates = () => this.#namespaceStates();
    new Gauge({
      name: 'agent_operator_namespace_synced',
      help: 'Per watched namespace and informer: 1 once listed, 0 while it is not (e.g. forbidden).',
      labelNames: ['namespace', 'informer'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of namespaceStates()) {
          this.set({ namespace: s.namespace || '*', informer: s.informer }, s.synced ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'agent_operator_workqueue_depth',
      help: 'Keys waiting in the work queue, by kind.',
      labelNames: ['kind'] as const,
      registers: [this.registry],
      collect() {
        for (const [kind, depth] of queueDepths) this.set({ kind }, depth());
      },
    });
    new Gauge({
      name: 'agent_operator_objects',
      help: 'Objects by kind, condition type (Ready, Stalled, Paused, Reconciling, Drifted) and status.',
      labelNames: ['kind', 'condition', 'status'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [kind, objects] of objectSources) {
          const counts = new Map<string, number>();
          for (const obj of objects()) {
            for (const c of obj.status?.conditions ?? []) {
              if (!(TRACKED_CONDITIONS as readonly string[]).includes(c.type)) continue;
              const key = `${c.type}/${c.status}`;
              counts.set(key, (counts.get(key) ?? 0) + 1);
            }
          }
          for (const [key, n] of counts) {
            const [condition = '', status = ''] = key.split('/');
            this.set({ kind, condition, status }, n);
          }
        }
      },
    });
  }

  /** Work-queue depth of a kind, read when scraped. */
  watchQueueDepth(kind: string, depth: () => number): void {
    this.#queueDepths.set(kind, depth);
  }

  /** Whether each watched namespace is listed, read when scraped. */
  watchNamespaces(states: () => readonly { namespace: string; informer: string; synced: boolean }[]): void {
    this.#namespaceStates = states;
  }

  /** Objects of a kind by condition, counted from the informer cache when scraped. */
  watchObjects(kind: string, objects: () => readonly ConditionedObject[]): void {
    this.#objectSources.set(kind, objects);
  }
}
