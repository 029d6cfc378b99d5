/**
 * The sharded run (`make bench ARGS="--replicas 3 --n 1000"`): R controller processes with
 * --sharding=auto beside a fresh simulator and namespace, at the controller's own defaults under
 * --sharding=auto (Lease timings, reconcile rate) unless flags say otherwise. Apply N objects and wait
 * for all Ready; then, per replica, the objects assigned to it (max over mean), its RSS and its control-plane
 * calls per poll interval; then one more replica joins (the share of objects that moved) and leaves
 * again (a graceful stop), and one of the R is killed with SIGKILL: the time until every object it held
 * had a pass by its new assignee.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeAccess } from '../src/kube/access.ts';
import { parseDuration } from '../src/lib/duration.ts';
import { OPTIONS } from '../src/options.ts';
import { assigneeOf } from '../src/runtime/shard-assignment.ts';
import { DEFAULT_API_KEY, defaultListeners, startSimulator } from '../src/simulator/index.ts';
import { pollStartAfter } from './calls.ts';
import type { Cleanup } from './cleanup.ts';
import { type ControllerProcess, startControllerProcess } from './controller-process.ts';
import { REVISION_STEPS } from './ideal.ts';
import { sampleSum, scrape } from './metrics-text.ts';
import { createNamespace, createObject, objectName, watchObjects } from './objects.ts';
import type { BenchOptions } from './options.ts';
import { mapLimit, median, sleep, waitFor } from './pool.ts';
import type { ScenarioResult } from './scenario.ts';

const MIB = 1024 * 1024;
/** Steady poll intervals the calls are counted over. */
const STEADY_INTERVALS = 3;
/** A poll starts with a lookup after this long without one (calls.ts, pollStartAfter). */
const POLL_QUIET_MS = 1_000;
/** The window opens this long before a poll's first call. */
const WINDOW_LEAD_MS = 500;

export interface ShardedResult {
  n: number;
  replicas: number;
  lease: { durationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** From the last apply until every object was Ready. */
  readyMs: number;
  perReplica: {
    identity: string;
    assigned: number;
    rssMiB: number;
    /**
     * Where the RSS goes: V8 heap reserved and used, the anonymous pages beside the node binary's, open
     * sockets.
     */
    heapTotalMiB: number;
    heapUsedMiB: number;
    anonymousMiB: number;
    sockets: number;
    callsPerPoll: number;
  }[];
  assignedMaxOverMean: number;
  /** Share of the objects whose assignee changed when one more replica joined. */
  movedOnJoin: number;
  /** The killed replica's objects: those the survivors take over. */
  orphaned: number;
  /** From the SIGKILL until every object was assigned to the survivors (its Lease seen expired, the share taken). */
  killToAssignedMs: number;
  /** From the SIGKILL until every orphaned object had a pass by its new assignee (see settled below). */
  killToReconciledMs: number;
}

/**
 * The RSS goal's measure: one replica alone at the replicas' share (round(N/R) objects, the single
 * run's scenario, its RSS after the steady intervals), run right after the sharded one on the same API
 * server, so that each pair is measured in the same conditions.
 */
export interface ShardedWithAlone extends ShardedResult {
  /** The round of `--repeat` (1 without it). */
  round: number;
  alone: { n: number; rssMiB: number; heapUsedMiB: number; anonymousMiB: number };
}

/** What the RSS goal reads of the single run of one replica alone: its memory after the steady intervals. */
export function aloneFigures(run: ScenarioResult): ShardedWithAlone['alone'] {
  const memory = run.memory.steady;
  return {
    n: run.n,
    rssMiB: memory.rssBytes / MIB,
    heapUsedMiB: memory.heapUsedBytes / MIB,
    anonymousMiB: memory.anonymousBytes / MIB,
  };
}

/** A replica may hold this much more than one replica alone at its share (the issue's goal). */
export const RSS_GOAL_MARGIN_MIB = 10;

/** The goal less the largest replica's RSS: at or above 0 the goal is met by every replica. */
export const rssGoalMarginMiB = (r: ShardedWithAlone) =>
  r.alone.rssMiB + RSS_GOAL_MARGIN_MIB - Math.max(...r.perReplica.map((p) => p.rssMiB));

/** The controller's default of a Lease timing under --sharding=auto (options.ts), in ms. */
function shardedDefaultMs(flag: string): number {
  const option = OPTIONS.find((o) => o.flag === flag);
  const value = option && 'shardedDefault' in option ? option.shardedDefault : undefined;
  const ms = value === undefined ? undefined : parseDuration(value);
  if (ms === undefined) throw new Error(`--${flag} has no default under --sharding=auto`);
  return ms;
}

export async function runShardedScenario(options: {
  n: number;
  bench: BenchOptions;
  access: KubeAccess;
  kubeconfigPath: string;
  resultsDir: string;
  stamp: string;
  cleanup: Cleanup;
  log: (line: string) => void;
}): Promise<ShardedResult> {
  const { n, bench, access, cleanup, log } = options;
  const sim = await startSimulator({ revisionStepMs: bench.revisionStepMs });
  const closeSim = cleanup.add(`simulator (sharded, N=${n})`, () => sim.close());
  sim.setLatency(bench.latencyMs);
  const listenerId = defaultListeners()[0]?.id as string;
  const ns = await createNamespace(access, `bench-sharded-n${n}`);
  const watch = watchObjects(access, ns);
  const stopWatch = cleanup.add(`watch (sharded, N=${n})`, () => watch.stop());
  const replicas = new Map<string, ControllerProcess>();
  const stopReplicas = cleanup.add(`replicas (N=${n})`, () =>
    Promise.all([...replicas.values()].map((r) => r.stop(2_000))).then(() => undefined),
  );
  const lease = {
    durationMs: bench.leaseDurationMs ?? shardedDefaultMs('leader-election-lease-duration'),
    renewDeadlineMs: bench.renewDeadlineMs ?? shardedDefaultMs('leader-election-renew-deadline'),
    retryPeriodMs: bench.retryPeriodMs ?? shardedDefaultMs('leader-election-retry-period'),
  };
  /** Waits that grow with N (a relist, a convergence, a takeover of N/R objects on a loaded machine). */
  const settleTimeoutMs = 120_000 + 30 * n;
  /**
   * How often the replicas are scraped while settling: each scrape counts every cached object's assignee
   * and state on the replica measured (O(N)), so at N = 10,000 every 500 ms, not 200.
   */
  const scrapeEveryMs = Math.max(200, Math.ceil(n / 20));
  /**
   * After the SIGKILL, the scrapes only confirm what the survivors' logs time exactly (`new share
   * held`, `gained objects reconciled`): at 500 ms they took 12 to 20% of the survivors' CPU while
   * they took over (their profiles), and their interval was the measure's grain.
   */
  const takeoverScrapeEveryMs = Math.max(scrapeEveryMs, 2_000);
  /** The time of the last line of a replica's log with this message at or after `since`, if any. */
  const loggedAt = async (replica: ControllerProcess, msg: string, since: number) => {
    let last: number | undefined;
    for (const line of (await readFile(replica.logFile, 'utf8')).split('\n')) {
      if (!line.includes(`"msg":"${msg}"`)) continue;
      const { time, kind } = JSON.parse(line) as { time: number; kind?: string };
      if (time >= since && (kind === undefined || kind === 'AgentDeployment')) last = time;
    }
    return last;
  };
  /** From `since` to the last survivor's line with this message (each logs one per takeover). */
  const lastLogged = async (alive: ControllerProcess[], msg: string, since: number, seen: number) => {
    const times = await Promise.all(alive.map((r) => loggedAt(r, msg, since)));
    // A survivor that logged none (it gained nothing) does not count; none at all: the scrape's time.
    const logged = times.filter((t): t is number => t !== undefined);
    return (logged.length > 0 ? Math.max(...logged) : seen) - since;
  };
  const start = async (pod: string) => {
    const replica = await startControllerProcess({
      logFile: join(options.resultsDir, `${options.stamp}-sharded-n${n}-${pod}.log`),
      nodeFlags: bench.nodeFlags,
      env: {
        KUBECONFIG: options.kubeconfigPath,
        CONTROL_PLANE_URL: sim.url,
        CONTROL_PLANE_API_KEY: DEFAULT_API_KEY,
        WATCH_NAMESPACES: ns,
        POD_NAME: pod,
        POD_NAMESPACE: ns,
        SHARDING: 'auto',
        // Only what the flags set: otherwise the controller's own defaults under --sharding=auto.
        ...(bench.leaseDurationMs ? { LEADER_ELECTION_LEASE_DURATION: `${bench.leaseDurationMs}ms` } : {}),
        ...(bench.renewDeadlineMs ? { LEADER_ELECTION_RENEW_DEADLINE: `${bench.renewDeadlineMs}ms` } : {}),
        ...(bench.retryPeriodMs ? { LEADER_ELECTION_RETRY_PERIOD: `${bench.retryPeriodMs}ms` } : {}),
        POLL_INTERVAL: `${bench.pollIntervalMs}ms`,
        REVISION_POLL_INTERVAL: `${bench.revisionPollMs ?? REVISION_STEPS * bench.revisionStepMs}ms`,
        WORKERS: String(bench.workers),
        ...(bench.shardedQps
          ? { RECONCILE_RATE: String(bench.shardedQps), CONTROL_PLANE_RPS: String(bench.shardedQps) }
          : {}),
        LOG_LEVEL: 'info',
      },
    });
    replicas.set(pod, replica);
    return replica;
  };
  /** Each replica's identity (from its metrics-free log: the shard members line) by pod. */
  const identityOf = (pod: string, text: string) =>
    new RegExp(`"identity":"(${pod}_[0-9a-f]{8})"`).exec(text)?.[1] ?? pod;

  try {
    await Promise.all(Array.from({ length: bench.replicas }, (_, i) => start(`bench-r${i}`)));
    const names = Array.from({ length: n }, (_, i) => objectName(i));
    await mapLimit(names, bench.applyConcurrency, (name) => createObject(access, ns, name, listenerId));
    const lastApplyAt = Date.now();
    await waitFor(() => (watch.readyAt.size === n ? true : undefined), {
      timeoutMs: bench.readyTimeoutMs ?? 60_000 + 100 * n,
      everyMs: 100,
      describe: () => `${n - watch.readyAt.size} objects not Ready`,
    });
    const readyMs = Math.max(...watch.readyAt.values()) - lastApplyAt;
    log(`sharded N=${n} × ${bench.replicas}: all Ready ${readyMs} ms after the last apply`);

    // Steady: assigned, RSS and calls per poll interval, per replica.
    await sleep(bench.pollIntervalMs);
    const since = Date.now();
    await sleep(bench.pollIntervalMs * (STEADY_INTERVALS + 1));
    const perReplica = await Promise.all(
      [...replicas].map(async ([pod, replica]) => {
        const identity = identityOf(pod, await readFile(replica.logFile, 'utf8'));
        const own = sim.requests().filter((r) => r.userAgent?.includes(`(${identity})`));
        // Each replica polls on its own clock: its window opens just before its first poll after
        // `since` and spans whole intervals, so it holds exactly STEADY_INTERVALS of its polls.
        const pollStart = pollStartAfter(own, since, POLL_QUIET_MS);
        if (pollStart === undefined) throw new Error(`${pod}: no steady poll started`);
        const windowStart = pollStart - WINDOW_LEAD_MS;
        const windowEnd = windowStart + bench.pollIntervalMs * STEADY_INTERVALS;
        const calls = own.filter((r) => r.at >= windowStart && r.at < windowEnd).length;
        const memory = await replica.memory();
        return {
          identity,
          assigned: sampleSum(
            await scrape(replica),
            'agent_operator_shard_objects',
            'kind="AgentDeployment"',
          ),
          rssMiB: memory.rssBytes / MIB,
          heapTotalMiB: memory.heapTotalBytes / MIB,
          heapUsedMiB: memory.heapUsedBytes / MIB,
          anonymousMiB: memory.anonymousBytes / MIB,
          sockets: memory.sockets,
          callsPerPoll: calls / STEADY_INTERVALS,
        };
      }),
    );
    const assigned = perReplica.map((r) => r.assigned);
    const assignedMaxOverMean =
      Math.max(...assigned) / (assigned.reduce((a, b) => a + b, 0) / assigned.length);

    /**
     * The replicas' view, from their metrics: what is assigned to them sums to N, and none awaits the first
     * pass of an object it gained (agent_operator_shard_objects_awaiting_pass: a pass of an object that did
     * not change calls and writes nothing, so neither the simulator nor the API server sees it). `idle`:
     * besides, the queues empty, no worker busy, and nothing it stands by for left to read
     * (agent_operator_shard_objects_awaiting_read: a replica reads what it began standing by for a retry
     * period after the members changed; a failover before that reads it first): a settled share, before the
     * kill.
     */
    const state = async (alive: ControllerProcess[]) => {
      const texts = await Promise.all(alive.map(scrape));
      const sum = (name: string, labels: string) => texts.reduce((s, t) => s + sampleSum(t, name, labels), 0);
      return {
        assigned: sum('agent_operator_shard_objects', 'kind="AgentDeployment"'),
        awaiting: sum('agent_operator_shard_objects_awaiting_pass', 'kind="AgentDeployment"'),
        unread: sum('agent_operator_shard_objects_awaiting_read', 'kind="AgentDeployment"'),
        busy:
          sum('workqueue_depth', 'name="agentdeployment"') +
          sum('controller_runtime_active_workers', 'controller="agentdeployment"'),
      };
    };
    const settled = async (alive: ControllerProcess[], idle = true) => {
      const s = await state(alive);
      return s.assigned === n && s.awaiting === 0 && (!idle || (s.busy === 0 && s.unread === 0))
        ? true
        : undefined;
    };
    // One more replica: which objects move (by the hash over the identities, as every replica computes it).
    const before = perReplica.map((r) => r.identity);
    const joined = await start(`bench-r${bench.replicas}`);
    const joinedId = identityOf(`bench-r${bench.replicas}`, await readFile(joined.logFile, 'utf8'));
    const keys = names.map((name) => `${ns}/${name}`);
    const after = [...before, joinedId];
    const movedOnJoin = keys.filter((k) => assigneeOf(k, before) !== assigneeOf(k, after)).length / n;
    await waitFor(() => settled([...replicas.values()]), {
      timeoutMs: settleTimeoutMs,
      everyMs: scrapeEveryMs,
      describe: () => 'the shares did not settle after a replica joined',
    });
    log(`sharded N=${n}: ${(movedOnJoin * 100).toFixed(1)}% of the objects moved to the new replica`);
    // Back to R (a graceful stop: its Lease deleted, its objects move at the next round), so the kill
    // below is of one of R replicas, as the goal is stated.
    replicas.delete(`bench-r${bench.replicas}`);
    await joined.stop(30_000);
    await waitFor(() => settled([...replicas.values()]), {
      timeoutMs: settleTimeoutMs,
      everyMs: scrapeEveryMs,
      describe: () => 'the shares did not settle after the added replica left',
    });
    // SIGKILL one: until everything is assigned to the survivors and each object it held had its first
    // pass by its new assignee.
    const victim = 'bench-r0';
    const victimId = perReplica.find((r) => r.identity.startsWith(`${victim}_`))?.identity ?? victim;
    const orphaned = keys.filter((k) => assigneeOf(k, before) === victimId).length;
    const survivors = [...replicas].filter(([pod]) => pod !== victim).map(([, r]) => r);
    const killedAt = Date.now();
    await replicas.get(victim)?.kill();
    replicas.delete(victim);
    await waitFor(async () => ((await state(survivors)).assigned === n ? true : undefined), {
      timeoutMs: settleTimeoutMs,
      everyMs: takeoverScrapeEveryMs,
      describe: () => 'the survivors did not take the killed replica’s objects',
    });
    const assignedSeen = Date.now();
    await waitFor(() => settled(survivors, false), {
      timeoutMs: settleTimeoutMs,
      everyMs: takeoverScrapeEveryMs,
      describe: () => 'the survivors did not reconcile the killed replica’s objects',
    });
    const reconciledSeen = Date.now();
    const killToAssignedMs = await lastLogged(survivors, 'new share held', killedAt, assignedSeen);
    const killToReconciledMs = await lastLogged(
      survivors,
      'gained objects reconciled',
      killedAt,
      reconciledSeen,
    );
    log(
      `sharded N=${n}: the killed replica's ${orphaned} objects assigned to the survivors ${killToAssignedMs} ms and reconciled ${killToReconciledMs} ms after the SIGKILL`,
    );
    return {
      n,
      replicas: bench.replicas,
      lease,
      readyMs,
      perReplica,
      assignedMaxOverMean,
      movedOnJoin,
      orphaned,
      killToAssignedMs,
      killToReconciledMs,
    };
  } finally {
    await stopReplicas();
    await stopWatch();
    await closeSim();
  }
}

const signed = (mib: number) => `${mib >= 0 ? '+' : '−'}${Math.abs(mib).toFixed(1)}`;

/** The sharded runs as a table, one column per N. */
export function formatShardedReport(results: readonly ShardedWithAlone[]): string {
  const rounds = new Set(results.map((r) => r.round)).size;
  const rows: [string, (r: ShardedWithAlone) => string][] = [
    [
      'replicas; lease duration / renew deadline / retry',
      (r) =>
        `${r.replicas}; ${r.lease.durationMs / 1000}s / ${r.lease.renewDeadlineMs / 1000}s / ${r.lease.retryPeriodMs / 1000}s`,
    ],
    ['all Ready after the last apply', (r) => `${(r.readyMs / 1000).toFixed(1)} s`],
    [
      'objects assigned per replica (max/mean)',
      (r) => `${r.perReplica.map((p) => p.assigned).join(' / ')} (${r.assignedMaxOverMean.toFixed(3)})`,
    ],
    ['RSS per replica', (r) => `${r.perReplica.map((p) => `${p.rssMiB.toFixed(1)}`).join(' / ')} MiB`],
    [
      '  anonymous / V8 heap total / used / sockets',
      (r) =>
        r.perReplica
          .map(
            (p) =>
              `${p.anonymousMiB.toFixed(1)} / ${p.heapTotalMiB.toFixed(1)} / ${p.heapUsedMiB.toFixed(1)} MiB / ${p.sockets}`,
          )
          .join('; '),
    ],
    [
      `goal: one replica alone at its share + ${RSS_GOAL_MARGIN_MIB} MiB (margin of the largest)`,
      (r) => `${(r.alone.rssMiB + RSS_GOAL_MARGIN_MIB).toFixed(1)} MiB (${signed(rssGoalMarginMiB(r))})`,
    ],
    [
      '  alone: N; RSS; anonymous / V8 heap used',
      (r) =>
        `${r.alone.n}; ${r.alone.rssMiB.toFixed(1)} MiB; ${r.alone.anonymousMiB.toFixed(1)} / ${r.alone.heapUsedMiB.toFixed(1)} MiB`,
    ],
    [
      'control-plane calls per poll interval, per replica',
      (r) => r.perReplica.map((p) => p.callsPerPoll.toFixed(1)).join(' / '),
    ],
    ['objects moved going to one more replica', (r) => `${(r.movedOnJoin * 100).toFixed(1)}%`],
    ['orphaned objects (the killed replica’s)', (r) => String(r.orphaned)],
    ['SIGKILL to every orphaned object assigned', (r) => `${(r.killToAssignedMs / 1000).toFixed(1)} s`],
    ['SIGKILL to every orphaned object reconciled', (r) => `${(r.killToReconciledMs / 1000).toFixed(1)} s`],
  ];
  const lines = [
    `| sharded | ${results.map((r) => `N = ${r.n}${rounds > 1 ? ` (round ${r.round})` : ''}`).join(' | ')} |`,
    `|---|${results.map(() => '---').join('|')}|`,
  ];
  for (const [label, cell] of rows) lines.push(`| ${label} | ${results.map(cell).join(' | ')} |`);
  if (rounds > 1) {
    const margins = results.map(rssGoalMarginMiB);
    lines.push(
      '',
      `RSS goal met in ${margins.filter((m) => m >= 0).length} of ${margins.length} runs; margin of the largest replica ${margins.map(signed).join(', ')} MiB (median ${signed(median(margins))})`,
    );
  }
  return lines.join('\n');
}
