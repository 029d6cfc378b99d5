/**
 * One benchmark run for N objects: a fresh simulator, namespace and controller process; apply N objects,
 * wait for all Ready, then three steady poll intervals, memory, and the reaction time of updates.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeAccess } from '../src/kube/access.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { DEFAULT_API_KEY, defaultListeners, type Simulator, startSimulator } from '../src/simulator/index.ts';
import {
  callsPerConvergedObject,
  countByOperation,
  MINIMUM_CALLS,
  MINIMUM_CALLS_TOTAL,
  operationOf,
  PATCH_OP,
  pollStartAfter,
} from './calls.ts';
import type { Cleanup } from './cleanup.ts';
import { type ClusterCost, clusterCost, sampleCluster } from './cluster-cost.ts';
import { startControllerProcess } from './controller-process.ts';
import { startProfile } from './convergence-profile.ts';
import { IDEAL_FORMULA, idealMs, REVISION_STEPS } from './ideal.ts';
import { sampleSum, scrape } from './metrics-text.ts';
import {
  agentDeploymentsPath,
  createNamespace,
  createObject,
  eventVersions,
  type ObjectWatch,
  objectName,
  setImage,
  UPDATED_IMAGE,
  watchObjects,
} from './objects.ts';
import type { BenchOptions } from './options.ts';
import { mapLimit, percentile, sleep, waitFor } from './pool.ts';
import type { MemoryBreakdown, ThreadCpu } from './process-memory.ts';
import { measureRestart, type RestartResult } from './restart.ts';
import { type ControllerTree, controllerEnv } from './trees.ts';

export interface ScenarioResult {
  n: number;
  /** The checkout whose controller and CRDs ran (trees.ts). */
  tree: string;
  namespace: string;
  controllerLog: string;
  apply: { durationMs: number; concurrency: number };
  convergence: {
    fromLastApplyMs: number;
    fromFirstApplyMs: number;
    idealMs: number;
    /** The ideal's first Ready: one revision's walk. */
    idealFirstReadyMs: number;
    /** The API server's median write latency, measured before the run (an input of the ideal). */
    kubeWriteMs: number;
    ratio: number;
    formula: string;
    /** When each object turned Ready, in ms after the last apply: the picture's curve. */
    readyMs: number[];
    deploymentsOnControlPlane: number;
    kubeWritesPerObject: number;
  };
  calls: {
    perObjectByOperation: Record<string, number>;
    perObject: number;
    minimumByOperation: Record<string, number>;
    minimumPerObject: number;
    ratio: number;
    sharedCalls: number;
  };
  steady: {
    /** Poll intervals measured (the window), and its length. */
    intervals: number;
    windowMs: number;
    /** Control-plane calls in the window divided by its intervals. */
    callsPerInterval: number;
    callsPerIntervalByOperation: Record<string, number>;
    deploymentCallsPerInterval: number;
    targetCalls: number;
    /**
     * Each call of the window: ms after its start, operation, status, and what a list asked for (how
     * many deployment ids, or a name), so a count above the target can be explained from the JSON.
     */
    log: Array<{ atMs: number; operation: string; status: number; ids?: number; name?: string }>;
    /** Over the whole window (and the Event listings around it). */
    statusWrites: number;
    eventWrites: number;
    /** Events written in the window by reason: a backlog from convergence shows as Created/RevisionDeployed. */
    eventWritesByReason: Record<string, number>;
    targetWrites: 0;
  };
  /**
   * Idle: started and synced, no objects yet; afterConvergence: when the last object turned Ready;
   * steady: at the end of the steady interval (peakRssBytes there is the run's peak).
   */
  memory: { idle: MemoryBreakdown; afterConvergence: MemoryBreakdown; steady: MemoryBreakdown };
  /** What the API server and etcd spent, and the controller's writes, from the first apply to all Ready. */
  cluster: ClusterCost;
  /** The controller's CPU time (user + system) from the first apply to all Ready, and per steady interval. */
  cpu: {
    convergenceSeconds: number;
    /** The convergence's CPU by kind of thread: the controller's work, the collector's. */
    convergenceByThread: ThreadCpu;
    steadyIntervalSeconds: number;
  };
  /**
   * AgentDeployment passes from the first apply to all Ready, per object (controller_runtime_reconcile_total):
   * constant in N unless something (a poll, a wake-up) sets off passes in proportion to the others.
   */
  passesPerObjectToReady: number;
  /** The node flags the controller ran with (the image's, unless --node-flags replaced them). */
  nodeFlags: string[];
  reaction: { updates: number; samplesMs: number[]; p50Ms: number | undefined; p99Ms: number | undefined };
  /** A restart beside the converged objects (restart.ts), at the largest N of the run. */
  restart?: RestartResult;
}

const SETTLE_MS = 1_000;
/** Poll intervals the steady window spans: whole polls, so every one of them is seen to cost the same. */
const STEADY_INTERVALS = 3;
/** A pause between batched lists at least this long separates two polls (within one they are ms apart). */
const POLL_QUIET_MS = 1_000;
/** How long before the first poll's first call the steady window opens. */
const WINDOW_LEAD_MS = 500;
/** How long a started controller is left alone before its idle memory is read. */
const IDLE_SETTLE_MS = 3_000;
const REACTION_TIMEOUT_MS = 30_000;

/** AgentDeployment passes the controller ran so far, whatever their result. */
async function agentDeploymentPasses(controller: { metricsUrl: string }): Promise<number> {
  return sampleSum(
    await scrape(controller),
    'controller_runtime_reconcile_total',
    'controller="agentdeployment"',
  );
}

export async function runScenario(options: {
  n: number;
  bench: BenchOptions;
  access: KubeAccess;
  kubeconfigPath: string;
  /** The controller's checkout; the cluster's CRDs are its. */
  tree: ControllerTree;
  /** The local cluster's kube-apiserver and etcd, whose CPU the run reads. */
  clusterPids: () => { apiServer: number; etcd: number };
  resultsDir: string;
  stamp: string;
  cleanup: Cleanup;
  /** Measure a restart after the rest (restart.ts). */
  restart: boolean;
  log: (line: string) => void;
}): Promise<ScenarioResult> {
  const { n, bench, access, cleanup, log } = options;
  const revisionPollMs = bench.revisionPollMs ?? REVISION_STEPS * bench.revisionStepMs;

  const sim = await startSimulator({ revisionStepMs: bench.revisionStepMs });
  const closeSim = cleanup.add(`simulator (N=${n})`, () => sim.close());
  sim.setLatency(bench.latencyMs);
  const listenerId = defaultListeners()[0]?.id;
  if (!listenerId) throw new Error('the simulator has no default listener');

  const ns = await createNamespace(access, `bench-n${n}`);
  const kubeWriteMs = await measureKubeWriteMs(access, ns, bench.workers);
  log(
    `N=${n}: API server write latency ${kubeWriteMs.toFixed(1)} ms (median of ${bench.workers} × ${WRITES_PER_WRITER} status patches, ${bench.workers} at once)`,
  );
  const watch = watchObjects(access, ns);
  const stopWatch = cleanup.add(`watch (N=${n})`, () => watch.stop());
  await waitFor(() => (watch.synced() ? true : undefined), {
    timeoutMs: 30_000,
    describe: () => `the watch on namespace ${ns} did not sync`,
  });

  const controllerLog = join(options.resultsDir, `${options.stamp}-controller-n${n}.log`);
  log(`N=${n}: namespace ${ns}; controller log ${controllerLog}`);
  const startController = (logFile: string) =>
    startControllerProcess({
      logFile,
      nodeFlags: bench.nodeFlags,
      inspect: bench.profile,
      tree: options.tree,
      env: {
        KUBECONFIG: options.kubeconfigPath,
        CONTROL_PLANE_API_KEY: DEFAULT_API_KEY,
        ...controllerEnv(options.tree, {
          'control-plane-url': sim.url,
          'watch-namespaces': ns,
          'poll-interval': `${bench.pollIntervalMs}ms`,
          'revision-poll-interval': `${revisionPollMs}ms`,
          workers: String(bench.workers),
          'control-plane-qps': String(bench.qps),
          'reconcile-rate': String(bench.qps),
          'control-plane-rps': String(bench.qps),
          'leader-elect': 'false',
          'log-level': 'info',
        }),
      },
    });
  let controller = await startController(controllerLog);
  const stopController = cleanup.add(`controller (N=${n})`, () => controller.stop());

  try {
    await sleep(IDLE_SETTLE_MS);
    const idle = await controller.memory();
    const cpuAtStart = await controller.cpuSeconds();
    const threadsAtStart = await controller.threadCpuSeconds();
    const passesAtStart = await agentDeploymentPasses(controller);
    const clusterAtStart = await sampleCluster(access, options.clusterPids());

    // Apply
    sim.resetRequests();
    const names = Array.from({ length: n }, (_, i) => objectName(i));
    const profile = bench.profile ? await startProfile(controllerLog) : undefined;
    const firstApplyAt = Date.now();
    await mapLimit(names, bench.applyConcurrency, (name) => createObject(access, ns, name, listenerId));
    const lastApplyAt = Date.now();
    log(`N=${n}: applied in ${lastApplyAt - firstApplyAt} ms; waiting for all Ready`);

    // Convergence
    await waitFor(() => (watch.readyAt.size === n ? true : undefined), {
      timeoutMs: bench.readyTimeoutMs ?? 60_000 + 100 * n,
      everyMs: 50,
      describe: () => notReadyReport(watch, names, sim),
    });
    const allReadyAt = Math.max(...watch.readyAt.values());
    // Taken now: the reaction updates below make 20 objects Ready again later.
    const readyMs = [...watch.readyAt.values()].map((at) => at - lastApplyAt).sort((a, b) => a - b);
    const cpuAtReady = await controller.cpuSeconds();
    const clusterAtReady = await sampleCluster(access, options.clusterPids());
    const threadsAtReady = await controller.threadCpuSeconds();
    const passesPerObjectToReady = ((await agentDeploymentPasses(controller)) - passesAtStart) / n;
    const afterConvergence = await controller.memory();
    if (profile) {
      const file = join(options.resultsDir, `${options.stamp}-n${n}.cpuprofile`);
      writeFileSync(file, JSON.stringify(await profile.stop()));
      log(`N=${n}: CPU profile from the first apply to all Ready: ${file}`);
    }
    const kubeWrites = watch.totalWrites();
    const deployments = sim.deployments();
    const nameById = new Map(deployments.map((d) => [d.id, d.name]));
    const perObject = callsPerConvergedObject({
      records: sim.requests(),
      nameById,
      readyAt: watch.readyAt,
      allReadyAt,
    });
    const ideal = idealMs({ ...bench, n, kubeWriteMs });
    const fromLastApplyMs = allReadyAt - lastApplyAt;
    log(`N=${n}: all Ready ${fromLastApplyMs} ms after the last apply (ideal ${ideal} ms)`);

    // Steady: after one more poll interval, so the polls that ran long under the convergence's last
    // load (at N = 10,000 the first poll after it took 14 s, and the next followed at once) are over.
    await sleep(bench.pollIntervalMs + SETTLE_MS);
    // Status and Event writes are counted over a span that holds the interval (listing the Events of
    // 10,000 objects takes a second): stricter for a target of 0. Calls and CPU over the interval alone.
    const writesBefore = watch.totalWrites();
    const eventsBefore = await eventVersions(access, ns);
    log(`N=${n}: measuring ${STEADY_INTERVALS} steady poll intervals (${bench.pollIntervalMs} ms each)`);
    // The window opens just before a poll starts and spans whole intervals, so it holds exactly
    // STEADY_INTERVALS polls (they start one interval apart, start to start).
    const searchFrom = Date.now();
    const pollStart = await waitFor(() => pollStartAfter(sim.requests(), searchFrom, POLL_QUIET_MS), {
      timeoutMs: 3 * bench.pollIntervalMs,
      everyMs: 100,
      describe: () => `no steady poll started within ${3 * bench.pollIntervalMs} ms`,
    });
    const cpuBeforeWindow = await controller.cpuSeconds();
    const windowStart = pollStart - WINDOW_LEAD_MS;
    const windowEnd = windowStart + bench.pollIntervalMs * STEADY_INTERVALS;
    await sleep(windowEnd - Date.now());
    const cpuAfterWindow = await controller.cpuSeconds();
    const statusWrites = watch.totalWrites() - writesBefore;
    const eventsAfter = await eventVersions(access, ns);
    const eventsWritten = [...eventsAfter.entries()].filter(
      ([name, e]) => eventsBefore.get(name)?.resourceVersion !== e.resourceVersion,
    );
    const eventWritesByReason: Record<string, number> = {};
    for (const [, e] of eventsWritten)
      eventWritesByReason[e.reason] = (eventWritesByReason[e.reason] ?? 0) + 1;
    const steadyRecords = sim.requests().filter((r) => r.at >= windowStart && r.at < windowEnd);
    const memory = { idle, afterConvergence, steady: await controller.memory() };
    const cpu = {
      convergenceSeconds: cpuAtReady - cpuAtStart,
      convergenceByThread: {
        mainThread: threadsAtReady.mainThread - threadsAtStart.mainThread,
        v8Workers: threadsAtReady.v8Workers - threadsAtStart.v8Workers,
        other: threadsAtReady.other - threadsAtStart.other,
      },
      steadyIntervalSeconds: (cpuAfterWindow - cpuBeforeWindow) / STEADY_INTERVALS,
    };

    // Reaction time: one update at a time, until its PATCH reaches the simulator
    const reaction = await measureReactions({ n, bench, access, ns, sim, watch, nameById, names });

    // A restart beside the N converged objects (at the largest N of the run)
    const restart = options.restart
      ? await measureRestart({
          n,
          access,
          ns,
          sim,
          watch,
          names,
          idByName: new Map([...nameById].map(([id, name]) => [name, id])),
          kill: () => controller.kill(),
          start: async () => {
            controller = await startController(controllerLog.replace(/\.log$/, '-restart.log'));
            return controller;
          },
          timeoutMs: bench.readyTimeoutMs ?? 60_000 + 100 * n,
          log,
        })
      : undefined;

    return {
      n,
      tree: options.tree.label,
      namespace: ns,
      controllerLog,
      apply: { durationMs: lastApplyAt - firstApplyAt, concurrency: bench.applyConcurrency },
      convergence: {
        fromLastApplyMs,
        fromFirstApplyMs: allReadyAt - firstApplyAt,
        idealMs: ideal,
        idealFirstReadyMs: REVISION_STEPS * bench.revisionStepMs,
        kubeWriteMs,
        ratio: fromLastApplyMs / ideal,
        formula: IDEAL_FORMULA,
        readyMs,
        deploymentsOnControlPlane: deployments.length,
        kubeWritesPerObject: kubeWrites / n,
      },
      calls: {
        perObjectByOperation: perObject.byOperation,
        perObject: perObject.total,
        minimumByOperation: { ...MINIMUM_CALLS },
        minimumPerObject: MINIMUM_CALLS_TOTAL,
        ratio: perObject.total / MINIMUM_CALLS_TOTAL,
        sharedCalls: perObject.sharedCalls,
      },
      steady: {
        intervals: STEADY_INTERVALS,
        windowMs: windowEnd - windowStart,
        callsPerInterval: steadyRecords.length / STEADY_INTERVALS,
        callsPerIntervalByOperation: Object.fromEntries(
          Object.entries(countByOperation(steadyRecords)).map(([op, calls]) => [
            op,
            calls / STEADY_INTERVALS,
          ]),
        ),
        deploymentCallsPerInterval:
          steadyRecords.filter((r) => r.route.startsWith('/v2/deployments')).length / STEADY_INTERVALS,
        log: steadyRecords.map((r) => ({
          atMs: r.at - windowStart,
          operation: operationOf(r),
          status: r.status,
          ...(r.query.deployment_ids ? { ids: r.query.deployment_ids.split(',').length } : {}),
          ...(r.query.name_contains ? { name: r.query.name_contains } : {}),
        })),
        targetCalls: Math.ceil(n / 100),
        statusWrites,
        eventWrites: eventsWritten.length,
        eventWritesByReason,
        targetWrites: 0,
      },
      memory,
      cluster: clusterCost(clusterAtStart, clusterAtReady, n),
      cpu,
      passesPerObjectToReady,
      nodeFlags: controller.nodeFlags,
      reaction,
      ...(restart ? { restart } : {}),
    };
  } finally {
    await stopController();
    await stopWatch();
    await closeSim();
  }
}

/** Measured writes per writer (after one warm-up). */
const WRITES_PER_WRITER = 25;

/**
 * The API server's median latency for the writes the controller makes: status merge patches of
 * AgentDeployments (schema validation, CEL rules and managed fields included, about twice a ConfigMap's
 * cost), by as many writers at once as the controller has workers, since the ideal has that many
 * writing side by side. Each writer has an object of its own, written before the controller starts and
 * deleted after; its first write is a warm-up and not counted.
 */
async function measureKubeWriteMs(access: KubeAccess, ns: string, writers: number): Promise<number> {
  const names = Array.from({ length: writers }, (_, i) => `bench-write-latency-${i}`);
  await Promise.all(names.map((name) => createObject(access, ns, name, 'write-latency')));
  const samples: number[] = [];
  await Promise.all(
    names.map(async (name) => {
      for (let i = 0; i <= WRITES_PER_WRITER; i++) {
        const startedAt = performance.now();
        await kubeRequest(access, {
          method: 'PATCH',
          path: `${agentDeploymentsPath(ns)}/${name}/status`,
          body: { status: { observedGeneration: 1, conditions: [writeSampleCondition(i)] } },
          contentType: 'application/merge-patch+json',
        });
        if (i > 0) samples.push(performance.now() - startedAt);
      }
    }),
  );
  await Promise.all(
    names.map((name) =>
      kubeRequest(access, { method: 'DELETE', path: `${agentDeploymentsPath(ns)}/${name}` }),
    ),
  );
  return percentile(samples, 50) ?? 0;
}

/** A Ready condition as the controller writes one; the message differs each time so each is a write. */
function writeSampleCondition(i: number) {
  return {
    type: 'Ready',
    status: 'False',
    reason: 'Progressing',
    message: `write latency sample ${i}`,
    lastTransitionTime: new Date().toISOString(),
    observedGeneration: 1,
  };
}

async function measureReactions(options: {
  n: number;
  bench: BenchOptions;
  access: KubeAccess;
  ns: string;
  sim: Simulator;
  watch: ObjectWatch;
  nameById: ReadonlyMap<string, string>;
  names: string[];
}): Promise<ScenarioResult['reaction']> {
  const { n, bench, access, ns, sim, names } = options;
  const idByName = new Map([...options.nameById].map(([id, name]) => [name, id]));
  const k = Math.min(bench.reactionUpdates, n);
  // Spread over the objects, so their steady polls fall at different times.
  const picked = Array.from({ length: k }, (_, i) => names[Math.floor((i * n) / k)] as string);
  const samplesMs: number[] = [];
  for (const name of picked) {
    const id = idByName.get(name);
    if (!id) throw new Error(`no deployment on the control plane for ${name}`);
    const sentAt = Date.now();
    await setImage(access, ns, name, UPDATED_IMAGE);
    const patch = await waitFor(
      () =>
        sim
          .requests({ method: 'PATCH' })
          .find((r) => operationOf(r) === PATCH_OP && r.path.endsWith(`/${id}`) && r.at >= sentAt),
      {
        timeoutMs: REACTION_TIMEOUT_MS,
        everyMs: 2,
        describe: () => `no PATCH reached the simulator for ${name} (deployment ${id}) after its update`,
      },
    );
    samplesMs.push(patch.at - sentAt);
  }
  return { updates: k, samplesMs, p50Ms: percentile(samplesMs, 50), p99Ms: percentile(samplesMs, 99) };
}

/** What a convergence timeout reports: how many are Ready, and why a few of the others are not. */
function notReadyReport(watch: ObjectWatch, names: string[], sim: Simulator): string {
  const notReady = names.filter((name) => !watch.readyAt.has(name));
  const sample = notReady.slice(0, 5).map((name) => {
    const obj = watch.get(name);
    const ready = obj?.status?.conditions?.find((c) => c.type === 'Ready');
    return obj
      ? `${name}: Ready=${ready?.status ?? '-'} ${ready?.reason ?? ''} ${ready?.message ?? ''}`.trim()
      : `${name}: not seen by the watch`;
  });
  return (
    `${names.length - notReady.length} of ${names.length} objects Ready ` +
    `(${sim.deployments().length} deployments on the control plane); not Ready, e.g.:\n  ${sample.join('\n  ')}`
  );
}
