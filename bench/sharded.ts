/**
 * The sharded run (`make bench ARGS="--replicas 3 --n 1000"`): R controller processes with
 * --sharding=auto beside a fresh simulator and namespace. Apply N objects and wait for all Ready; then,
 * per replica, the objects it owns (max over mean), its RSS and its control-plane calls per poll
 * interval; then a fourth replica joins (the share of objects that moved), and one replica is killed
 * with SIGKILL (the time until every object it held was reconciled by its new owner).
 */
import { join } from 'node:path';
import type { KubeAccess } from '../src/kube/access.ts';
import { ownerOf } from '../src/runtime/shard-ownership.ts';
import { DEFAULT_API_KEY, defaultListeners, startSimulator } from '../src/simulator/index.ts';
import type { Cleanup } from './cleanup.ts';
import { type ControllerProcess, startControllerProcess } from './controller-process.ts';
import { REVISION_STEPS } from './ideal.ts';
import { createNamespace, createObject, objectName, watchObjects } from './objects.ts';
import type { BenchOptions } from './options.ts';
import { mapLimit, sleep, waitFor } from './pool.ts';

const MIB = 1024 * 1024;
/** Steady poll intervals the calls are counted over. */
const STEADY_INTERVALS = 3;

export interface ShardedResult {
  n: number;
  replicas: number;
  lease: { durationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** From the last apply until every object was Ready. */
  readyMs: number;
  perReplica: { identity: string; owned: number; rssMiB: number; callsPerPoll: number }[];
  ownedMaxOverMean: number;
  /** Share of the objects whose owner changed when one more replica joined. */
  movedOnJoin: number;
  /** From the SIGKILL until the survivors owned every object and had reconciled what they gained. */
  killToReconciledMs: number;
}

/** A sample of a metric (summed over its series) from a text exposition. */
function sampleSum(text: string, name: string, labels = ''): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels && !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function scrape(replica: ControllerProcess): Promise<string> {
  return (await fetch(replica.metricsUrl)).text();
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
    durationMs: bench.leaseDurationMs,
    renewDeadlineMs: bench.renewDeadlineMs,
    retryPeriodMs: bench.retryPeriodMs,
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
        LEADER_ELECTION_LEASE_DURATION: `${lease.durationMs}ms`,
        LEADER_ELECTION_RENEW_DEADLINE: `${lease.renewDeadlineMs}ms`,
        LEADER_ELECTION_RETRY_PERIOD: `${lease.retryPeriodMs}ms`,
        POLL_INTERVAL: `${bench.pollIntervalMs}ms`,
        REVISION_POLL_INTERVAL: `${bench.revisionPollMs ?? REVISION_STEPS * bench.revisionStepMs}ms`,
        WORKERS: String(bench.workers),
        RECONCILE_RATE: String(bench.qps),
        CONTROL_PLANE_RPS: String(bench.qps),
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

    // Steady: owned, RSS and calls per poll interval, per replica.
    await sleep(bench.pollIntervalMs);
    const since = Date.now();
    await sleep(bench.pollIntervalMs * STEADY_INTERVALS);
    const { readFile } = await import('node:fs/promises');
    const perReplica = await Promise.all(
      [...replicas].map(async ([pod, replica]) => {
        const identity = identityOf(pod, await readFile(replica.logFile, 'utf8'));
        const calls = sim
          .requests()
          .filter((r) => r.at >= since && r.userAgent?.includes(`(${identity})`)).length;
        return {
          identity,
          owned: sampleSum(await scrape(replica), 'agent_operator_shard_objects', 'kind="AgentDeployment"'),
          rssMiB: (await replica.memory()).rssBytes / MIB,
          callsPerPoll: calls / STEADY_INTERVALS,
        };
      }),
    );
    const owned = perReplica.map((r) => r.owned);
    const ownedMaxOverMean = Math.max(...owned) / (owned.reduce((a, b) => a + b, 0) / owned.length);

    // One more replica: which objects move (by the hash over the identities, as every replica computes it).
    const before = perReplica.map((r) => r.identity);
    const joined = await start(`bench-r${bench.replicas}`);
    const joinedId = identityOf(`bench-r${bench.replicas}`, await readFile(joined.logFile, 'utf8'));
    const keys = names.map((name) => `${ns}/${name}`);
    const after = [...before, joinedId];
    const movedOnJoin = keys.filter((k) => ownerOf(k, before) !== ownerOf(k, after)).length / n;
    const settled = async (alive: ControllerProcess[]) => {
      const texts = await Promise.all(alive.map(scrape));
      const total = texts.reduce(
        (sum, t) => sum + sampleSum(t, 'agent_operator_shard_objects', 'kind="AgentDeployment"'),
        0,
      );
      const busy = texts.reduce(
        (sum, t) =>
          sum +
          sampleSum(t, 'workqueue_depth', 'name="agentdeployment"') +
          sampleSum(t, 'controller_runtime_active_workers', 'controller="agentdeployment"'),
        0,
      );
      return total === n && busy === 0 ? true : undefined;
    };
    await waitFor(() => settled([...replicas.values()]), {
      timeoutMs: 120_000,
      everyMs: 200,
      describe: () => 'the shares did not settle after a replica joined',
    });
    log(`sharded N=${n}: ${(movedOnJoin * 100).toFixed(1)}% of the objects moved to the new replica`);

    // SIGKILL one: until the survivors own everything and have reconciled what they gained.
    const victim = 'bench-r0';
    const killedAt = Date.now();
    await replicas.get(victim)?.kill();
    replicas.delete(victim);
    await waitFor(() => settled([...replicas.values()]), {
      timeoutMs: 120_000,
      everyMs: 100,
      describe: () => 'the survivors did not take the killed replica’s objects over',
    });
    const killToReconciledMs = Date.now() - killedAt;
    log(
      `sharded N=${n}: the killed replica's objects reconciled by their new owners ${killToReconciledMs} ms after the SIGKILL`,
    );
    return {
      n,
      replicas: bench.replicas,
      lease,
      readyMs,
      perReplica,
      ownedMaxOverMean,
      movedOnJoin,
      killToReconciledMs,
    };
  } finally {
    await stopReplicas();
    await stopWatch();
    await closeSim();
  }
}

/** The sharded runs as a table, one column per N. */
export function formatShardedReport(results: readonly ShardedResult[]): string {
  const rows: [string, (r: ShardedResult) => string][] = [
    [
      'replicas; lease duration / renew deadline / retry',
      (r) =>
        `${r.replicas}; ${r.lease.durationMs / 1000}s / ${r.lease.renewDeadlineMs / 1000}s / ${r.lease.retryPeriodMs / 1000}s`,
    ],
    ['all Ready after the last apply', (r) => `${(r.readyMs / 1000).toFixed(1)} s`],
    [
      'objects owned per replica (max/mean)',
      (r) => `${r.perReplica.map((p) => p.owned).join(' / ')} (${r.ownedMaxOverMean.toFixed(3)})`,
    ],
    ['RSS per replica', (r) => `${r.perReplica.map((p) => `${p.rssMiB.toFixed(0)}`).join(' / ')} MiB`],
    [
      'control-plane calls per poll interval, per replica',
      (r) => r.perReplica.map((p) => p.callsPerPoll.toFixed(1)).join(' / '),
    ],
    ['objects moved going to one more replica', (r) => `${(r.movedOnJoin * 100).toFixed(1)}%`],
    ['SIGKILL to every orphaned object reconciled', (r) => `${(r.killToReconciledMs / 1000).toFixed(1)} s`],
  ];
  const lines = [
    `| sharded | ${results.map((r) => `N = ${r.n}`).join(' | ')} |`,
    `|---|${results.map(() => '---').join('|')}|`,
  ];
  for (const [label, cell] of rows) lines.push(`| ${label} | ${results.map(cell).join(' | ')} |`);
  return lines.join('\n');
}
