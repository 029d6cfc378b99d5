/**
 * The operator's Prometheus metrics, on a registry of its own (no global state: tests run several
 * operators in one process). Served at /metrics by http.ts. The controller, work-queue and API-client
 * metrics carry controller-runtime's names (runtime/runtime-metrics.ts); the agent_operator_* ones here
 * are those controller-runtime has no counterpart for. docs/observability.md lists them all.
 */

import type { Condition } from './api/common.ts';
import { memoByChanges } from './lib/memo-by-changes.ts';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from './lib/prom-client.ts';
import { objectState } from './runtime/object-state.ts';
import { RuntimeMetrics } from './runtime/runtime-metrics.ts';

export interface ObservedObject {
  metadata: { namespace?: string | undefined; generation?: number | undefined };
  status?: { observedGeneration?: number | undefined; conditions?: readonly Condition[] | undefined };
}

const TRACKED_CONDITIONS = ['Ready', 'Stalled', 'Paused', 'Reconciling', 'Drifted'] as const;

/**
 * Under --sharding=auto, of one kind: its share, the objects no member may work on, those awaiting a
 * pass, those a takeover would have to read first.
 */
export interface ShardObjects {
  kind: string;
  assigned: number;
  unassigned: number;
  awaitingPass: number;
  awaitingRead: number;
}

/**
 * `read`, computed at most once per event-loop turn: the gauges of one scrape are collected in one
 * turn, so they share one reading, and the next scrape reads afresh.
 */
function oncePerTurn<T>(read: () => T): () => T {
  let cached: { value: T } | undefined;
  return () => {
    if (cached) return cached.value;
    cached = { value: read() };
    setImmediate(() => {
      cached = undefined;
    });
    return cached.value;
  };
}

/** How many objects of a kind an informer cache holds in one form (projection.ts's CachedForm). */
interface CachedCount {
  kind: string;
  form: 'full' | 'projection';
  count: number;
}

export class OperatorMetrics {
  readonly registry = new Registry();
  readonly runtime = new RuntimeMetrics(this.registry);

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

  readonly controlPlaneCircuitTransitions = new Counter({
    name: 'agent_operator_controlplane_circuit_transitions_total',
    help: "A credential identity's circuit breaker opening (state open) or closing (state closed), by the identity's digest.",
    labelNames: ['identity', 'state'] as const,
    registers: [this.registry],
  });

  readonly analysisMeasurements = new Counter({
    name: 'agent_operator_analysis_measurements_total',
    help: 'Analysis measurements (spec.analysis) by outcome (Successful, Failed, Inconclusive, Error) and provider (agentServer, web, prometheus).',
    labelNames: ['outcome', 'provider'] as const,
    registers: [this.registry],
  });

  readonly leader = new Gauge({
    name: 'agent_operator_leader',
    help: '1 while this replica leads (runs reconciles), else 0.',
    registers: [this.registry],
  });

  readonly shardHandovers = new Counter({
    name: 'agent_operator_shard_handovers_total',
    help: 'Member lists this replica acknowledged under --sharding=auto (each a handover: a member came or went).',
    registers: [this.registry],
  });

  readonly shardTakeover = new Histogram({
    name: 'agent_operator_shard_takeover_duration_seconds',
    help: 'From a change of the shard members seen to this replica holding its new share (the old assignees let go, or their Leases expired).',
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60],
    registers: [this.registry],
  });

  #shardObjects: () => readonly ShardObjects[] = () => [];
  #shardMembers: () => number = () => 0;
  #cachedObjects: () => readonly CachedCount[] = () => [];

  #namespaceStates: () => readonly { namespace: string; informer: string; synced: boolean }[] = () => [];
  #windowHolds: () => { object: number; policy: number } = () => ({ object: 0, policy: 0 });
  readonly #objectSources = new Map<
    string,
    { byCondition: () => readonly ConditionCount[]; byState: () => readonly StateCount[] }
  >();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Four gauges read the shard census once per scrape (it walks every cached key only after the
    // cache or the members' view changed: operator-shards.ts).
    const shardObjects = oncePerTurn(() => this.#shardObjects());
    const shardMembers = () => this.#shardMembers();
    // One gauge per figure of the census, labelled by kind.
    const shardFigures: [name: string, help: string, figure: (s: ShardObjects) => number][] = [
      [
        'agent_operator_shard_objects',
        'Objects of a kind this replica works on under --sharding=auto (its share), read when scraped.',
        (s) => s.assigned,
      ],
      [
        'agent_operator_shard_objects_unowned',
        "Objects of a kind no live member may work on, as this replica reads the members' Leases (a handover under way; for long, a member that cannot let go).",
        (s) => s.unassigned,
      ],
      [
        'agent_operator_shard_objects_awaiting_pass',
        'Objects of a kind this replica gained (a takeover, a handover, its join) whose first pass here has not ended yet; 0 once the takeover is done.',
        (s) => s.awaitingPass,
      ],
      [
        'agent_operator_shard_objects_awaiting_read',
        'Objects of a kind this replica stands by for (it takes them over should their assignee go) or has assigned to it, held as projections alone: a takeover of them reads them from the API server first. Back to 0 once it has read them, soon after a change of members.',
        (s) => s.awaitingRead,
      ],
    ];
    for (const [name, help, figure] of shardFigures) {
      new Gauge({
        name,
        help,
        labelNames: ['kind'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const s of shardObjects()) this.set({ kind: s.kind }, figure(s));
        },
      });
    }
    const cachedObjects = () => this.#cachedObjects();
    new Gauge({
      name: 'agent_operator_cached_objects',
      help: "Objects of a kind in this replica's cache: in full or, under --sharding=auto, as a projection (the objects neither assigned to it nor stood by for: only what claims read), read when scraped.",
      labelNames: ['kind', 'form'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const c of cachedObjects()) this.set({ kind: c.kind, form: c.form }, c.count);
      },
    });
    new Gauge({
      name: 'agent_operator_shard_members',
      help: 'Live members of the shard group this replica sees (0 without --sharding=auto).',
      registers: [this.registry],
      collect() {
        this.set(shardMembers());
      },
    });
    const windowHolds = () => this.#windowHolds();
    new Gauge({
      name: 'agent_operator_window_held_objects',
      help: "AgentDeployments whose change a closed deployment window holds now, by the windows' source: object (spec.deploymentWindows) or policy (a DeploymentWindowPolicy); one held by both counts in both.",
      labelNames: ['source'] as const,
      registers: [this.registry],
      collect() {
        const { object, policy } = windowHolds();
        this.set({ source: 'object' }, object);
        this.set({ source: 'policy' }, policy);
      },
    });
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
      name: 'agent_operator_objects',
      help: 'Objects by kind, condition type (Ready, Stalled, Paused, Reconciling, Drifted) and status.',
      labelNames: ['kind', 'condition', 'status'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [kind, counted] of objectSources) {
          for (const { condition, status, n } of counted.byCondition())
            this.set({ kind, condition, status }, n);
        }
      },
    });
    new Gauge({
      name: 'agent_operator_objects_by_state',
      help: 'Objects by kind, namespace, state (ready, stalled, reconciling, paused) and the reason of the condition that decides it. Counts, not one series per object.',
      labelNames: ['kind', 'namespace', 'state', 'reason'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [kind, counted] of objectSources) {
          for (const { n, ...labels } of counted.byState()) this.set({ kind, ...labels }, n);
        }
      },
    });
  }

  /** How many objects closed deployment windows hold now, read when scraped. */
  watchWindowHolds(counts: () => { object: number; policy: number }): void {
    this.#windowHolds = counts;
  }

  /** Whether each watched namespace is listed, read when scraped. */
  watchNamespaces(states: () => readonly { namespace: string; informer: string; synced: boolean }[]): void {
    this.#namespaceStates = states;
  }

  /** Under --sharding=auto: each kind's objects assigned and unassigned, and the members, when scraped. */
  watchShards(objects: () => readonly ShardObjects[], members: () => number): void {
    this.#shardObjects = objects;
    this.#shardMembers = members;
  }

  /**
   * What the informer caches hold, in full and as projections, read when scraped and counted
   * again only once `changes` (lib/memo-by-changes.ts) moved.
   */
  watchCache(counts: () => readonly CachedCount[], changes: () => readonly number[]): void {
    this.#cachedObjects = memoByChanges(changes, counts);
  }

  /**
   * Objects of a kind by condition and by state, counted from the informer cache when scraped, and
   * again only once `changes` (lib/memo-by-changes.ts) moved.
   */
  watchObjects(
    kind: string,
    objects: () => readonly ObservedObject[],
    changes: () => readonly number[],
  ): void {
    this.#objectSources.set(kind, {
      byCondition: memoByChanges(changes, () => countByCondition(objects())),
      byState: memoByChanges(changes, () => countByState(objects())),
    });
  }
}

type ConditionCount = Counted<{ condition: string; status: string }>;
type StateCount = Counted<{ namespace: string; state: string; reason: string }>;
type Counted<L> = L & { n: number };

/** How many times each set of label values occurs. */
function tally<L extends Record<string, string>>(labelled: Iterable<L>): Counted<L>[] {
  const counts = new Map<string, Counted<L>>();
  for (const labels of labelled) {
    const key = Object.values(labels).join('\0');
    const entry = counts.get(key) ?? { ...labels, n: 0 };
    entry.n += 1;
    counts.set(key, entry);
  }
  return [...counts.values()];
}

function countByCondition(objects: readonly ObservedObject[]): ConditionCount[] {
  return tally(
    (function* () {
      for (const obj of objects) {
        for (const c of obj.status?.conditions ?? []) {
          if ((TRACKED_CONDITIONS as readonly string[]).includes(c.type))
            yield { condition: c.type, status: c.status };
        }
      }
    })(),
  );
}

function countByState(objects: readonly ObservedObject[]): StateCount[] {
  return tally(
    (function* () {
      for (const obj of objects) {
        const { state, reason } = objectState(obj);
        yield { namespace: obj.metadata.namespace ?? '', state, reason };
      }
    })(),
  );
}
