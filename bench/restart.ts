/**
 * A restart beside N converged objects: the controller is killed (SIGKILL), a few deployments are changed
 * on the simulator behind its back, and a new controller process starts. Measured from its spawn: the
 * control-plane calls by operation, the Kubernetes writes (objects and Events, for the drifted objects and
 * for the others), when the drift was fixed, when every object's deployment had been observed (listed or
 * read), and the new process's peak RSS against the chart's memory request.
 */
import type { KubeAccess } from '../src/kube/access.ts';
import { DEFAULT_API_KEY, type Simulator } from '../src/simulator/index.ts';
import { countByOperation, LOOKUP_OP, operationOf } from './calls.ts';
import type { ControllerProcess } from './controller-process.ts';
import { sampleSum, scrape } from './metrics-text.ts';
import { eventVersions, isReady, type ObjectWatch } from './objects.ts';
import { waitFor } from './pool.ts';
import { metric } from './process-memory.ts';

/** Deployments changed on the control plane while the controller is down. */
export const DRIFTED = 5;
const DRIFTED_IMAGE = 'registry.example.com/agent:changed-behind-the-controller';
/** The chart's memory request (helm/agent-operator/values.yaml, resources.requests.memory). */
export const CHART_MEMORY_REQUEST_BYTES = 192 * 1024 * 1024;
/** Listings (calls with deployment_ids) at least this far apart belong to different polls. */
const LISTING_GAP_MS = 1_000;

export interface RestartResult {
  n: number;
  drifted: number;
  /** Every call from the new process's spawn until it settled, by operation. */
  callsByOperation: Record<string, number>;
  calls: number;
  /** Single GETs of a deployment that was not changed (target 0). */
  unchangedDeploymentGets: number;
  /** Batched listings (deployment_ids calls one poll makes, or the first listing), in the window. */
  listings: number;
  /** resourceVersion changes of the objects, and new or bumped Events: drifted / others (target 0). */
  kubeWrites: { drifted: number; others: number };
  eventWrites: { drifted: number; others: number };
  /** After the spawn: ready (/readyz), every drift fixed, every deployment observed, the queue drained. */
  readyMs: number;
  driftFixedMs: number;
  allObservedMs: number;
  settledMs: number;
  /** When each deployment was first observed, ms after the spawn: the picture's curve. */
  observedMs: number[];
  peakRssBytes: number;
  memoryRequestBytes: number;
}

/** The deployment ids a call observed: those a listing asked for, or the one a GET read. */
function observedIds(r: { method: string; route: string; path: string; query: Record<string, string> }) {
  if (operationOf(r as never) === LOOKUP_OP) return r.query.deployment_ids?.split(',') ?? [];
  if (r.method === 'GET' && r.route === '/v2/deployments/{deployment_id}')
    return [r.path.split('/')[3] ?? ''];
  return [];
}

export async function measureRestart(options: {
  n: number;
  access: KubeAccess;
  ns: string;
  sim: Simulator;
  watch: ObjectWatch;
  names: readonly string[];
  idByName: ReadonlyMap<string, string>;
  kill: () => Promise<void>;
  start: () => Promise<ControllerProcess>;
  timeoutMs: number;
  log: (line: string) => void;
}): Promise<RestartResult> {
  const { n, access, ns, sim, watch, names, idByName, log } = options;
  // Spread over the objects, as the reaction updates are.
  const drifted = Array.from(
    { length: Math.min(DRIFTED, n) },
    (_, i) => names[Math.floor((i * n) / DRIFTED)] as string,
  );
  const ready = (name: string) => {
    const obj = watch.get(name);
    return obj !== undefined && isReady(obj);
  };
  await waitFor(() => (names.every(ready) ? true : undefined), {
    timeoutMs: options.timeoutMs,
    everyMs: 200,
    describe: () => 'not every object was Ready again before the restart',
  });

  await options.kill();
  const revisionBefore = new Map<string, string | undefined>();
  for (const name of drifted) {
    const id = idByName.get(name) as string;
    revisionBefore.set(name, watch.get(name)?.status?.latestRevisionId);
    const res = await fetch(`${sim.url}/v2/deployments/${id}`, {
      method: 'PATCH',
      headers: { 'X-Api-Key': DEFAULT_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ source_revision_config: { image_uri: DRIFTED_IMAGE } }),
    });
    if (!res.ok) throw new Error(`changing deployment ${id} behind the controller: ${res.status}`);
  }
  const writesBefore = new Map(names.map((name) => [name, watch.writes.get(name) ?? 0]));
  const eventsBefore = await eventVersions(access, ns);
  sim.resetRequests();
  log(`N=${n}: controller killed, ${drifted.length} deployments changed behind it; starting it again`);

  const spawnedAt = Date.now();
  const controller = await options.start();
  const readyMs = Date.now() - spawnedAt;
  const driftedIds = new Set(drifted.map((name) => idByName.get(name)));
  const fixed = (name: string) => {
    const obj = watch.get(name);
    // Its own image again (the reaction updates gave some objects another than the first).
    const image = obj?.spec.sourceRevisionConfig?.imageUri;
    const status = obj?.status;
    return (
      ready(name) && status?.imageVersion === image && status?.latestRevisionId !== revisionBefore.get(name)
    );
  };
  const firstObserved = new Map<string, number>();
  let seenRecords = 0;
  const observe = () => {
    const records = sim.requests();
    for (const r of records.slice(seenRecords)) {
      for (const id of observedIds(r)) if (!firstObserved.has(id)) firstObserved.set(id, r.at - spawnedAt);
    }
    seenRecords = records.length;
  };
  let driftFixedMs: number | undefined;
  let allObservedMs: number | undefined;
  await waitFor(
    async () => {
      observe();
      if (driftFixedMs === undefined && drifted.every(fixed)) driftFixedMs = Date.now() - spawnedAt;
      if (allObservedMs === undefined && firstObserved.size >= n)
        allObservedMs = Math.max(...firstObserved.values());
      if (driftFixedMs === undefined || allObservedMs === undefined) return undefined;
      // Every object had its first pass: reconciles at least N, the queue empty, no worker busy.
      const text = await scrape(controller);
      const reconciles = sampleSum(
        text,
        'controller_runtime_reconcile_total',
        'controller="agentdeployment"',
      );
      const depth = sampleSum(text, 'workqueue_depth', 'name="agentdeployment"');
      const active = metric(text, 'controller_runtime_active_workers{controller="agentdeployment"}');
      return reconciles >= n && depth === 0 && active === 0 ? true : undefined;
    },
    {
      timeoutMs: options.timeoutMs,
      everyMs: 200,
      describe: () =>
        `after the restart: ${firstObserved.size} of ${n} deployments observed, drift fixed: ${drifted.filter(fixed).length} of ${drifted.length}`,
    },
  );
  const settledMs = Date.now() - spawnedAt;
  observe();
  const records = sim.requests();
  const peakRssBytes = (await controller.memory()).peakRssBytes;
  const eventsAfter = await eventVersions(access, ns);
  const isDrifted = new Set(drifted);
  const eventWrites = { drifted: 0, others: 0 };
  for (const [name, e] of eventsAfter) {
    if (eventsBefore.get(name)?.resourceVersion === e.resourceVersion) continue;
    eventWrites[isDrifted.has(e.about) ? 'drifted' : 'others'] += 1;
  }
  const kubeWrites = { drifted: 0, others: 0 };
  for (const name of names) {
    const writes = (watch.writes.get(name) ?? 0) - (writesBefore.get(name) ?? 0);
    kubeWrites[isDrifted.has(name) ? 'drifted' : 'others'] += writes;
  }
  const lists = records.filter((r) => operationOf(r) === LOOKUP_OP && r.query.deployment_ids !== undefined);
  const listings = lists.filter((r, i) => i === 0 || r.at - (lists[i - 1]?.at ?? 0) >= LISTING_GAP_MS).length;
  return {
    n,
    drifted: drifted.length,
    callsByOperation: countByOperation(records),
    calls: records.length,
    unchangedDeploymentGets: records.filter(
      (r) =>
        r.method === 'GET' &&
        r.route === '/v2/deployments/{deployment_id}' &&
        !driftedIds.has(r.path.split('/')[3]),
    ).length,
    listings,
    kubeWrites,
    eventWrites,
    readyMs,
    driftFixedMs: driftFixedMs as number,
    allObservedMs: allObservedMs as number,
    settledMs,
    observedMs: [...firstObserved.values()],
    peakRssBytes,
    memoryRequestBytes: CHART_MEMORY_REQUEST_BYTES,
  };
}
