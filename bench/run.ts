/**
 * `make bench`: the operator against a local API server and the simulator with a fixed latency per call,
 * for each N. Prints a table and writes bench/results/<timestamp>.json. See bench/README.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { kubeAccessFromFile } from '../src/kube/access.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { readyChartSvg } from './chart.ts';
import { Cleanup } from './cleanup.ts';
import { killLiveControllers } from './controller-process.ts';
import { installCrds } from './crds.ts';
import { IDEAL_FORMULA, REVISION_STEPS } from './ideal.ts';
import { type BenchOptions, parseBenchOptions, USAGE } from './options.ts';
import { formatReport, type RoundResult } from './report.ts';
import { runScenario, type ScenarioResult } from './scenario.ts';
import { aloneFigures, formatShardedReport, runShardedScenario, type ShardedWithAlone } from './sharded.ts';
import { type ControllerTree, prepareTree } from './trees.ts';

const RESULTS_DIR = resolve(import.meta.dirname, 'results');
const log = (line: string) => process.stderr.write(`${line}\n`);

const cleanup = new Cleanup();
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`\n${signal}: stopping the controller, the simulator and the cluster`);
    void cleanup.runAll(log).finally(() => process.exit(130));
  });
}
process.on('exit', killLiveControllers);

async function main(options: BenchOptions): Promise<void> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const resultFile = join(RESULTS_DIR, `${stamp}.json`);
  const revisionPollMs = options.revisionPollMs ?? REVISION_STEPS * options.revisionStepMs;
  const machine = { cpus: cpus().length, node: process.version };

  log('compiling the controller as the image does (scripts/build.ts -> dist/)');
  const trees: ControllerTree[] = [];
  for (const dir of options.controllerTrees) trees.push(await prepareTree(dir));
  if (trees.length > 1)
    log(`trees, one after the other in each round: ${trees.map((t) => t.label).join(', ')}`);

  const results: RoundResult[] = [];
  const pictures: string[] = [];
  const sharded: ShardedWithAlone[] = [];
  const rounds = Array.from({ length: options.repeat }, (_, i) => i + 1);
  for (const [round, tree] of rounds.flatMap((r) => trees.map((t) => [r, t] as const))) {
    if (interrupted) break;
    // Each round and tree on a fresh API server, so that none runs beside an earlier one's objects.
    const roundStamp =
      (options.repeat > 1 ? `${stamp}-r${round}` : stamp) +
      (trees.length > 1 ? `-${tree.label.replace(/[^\w.-]/g, '_')}` : '');
    if (options.repeat > 1) log(`round ${round} of ${options.repeat}`);
    log(`starting a local API server (etcd + kube-apiserver) for ${tree.label}`);
    const cluster = await startLocalCluster({ log });
    const stopCluster = cleanup.add('local cluster', () => cluster.stop());
    await installCrds(cluster.binDir, cluster.kubeconfigPath, join(tree.dir, 'crds'));
    const access = kubeAccessFromFile(cluster.kubeconfigPath);
    const run = {
      access,
      kubeconfigPath: cluster.kubeconfigPath,
      tree,
      clusterPids: () => cluster.pids(),
      resultsDir: RESULTS_DIR,
      stamp: roundStamp,
      cleanup,
      log,
    };

    for (const n of options.n) {
      if (interrupted) return;
      if (options.replicas > 1) {
        const result = await runShardedScenario({ ...run, n, bench: options });
        const share = Math.round(n / options.replicas);
        log(`sharded N=${n}: one replica alone at its share (N=${share}), the RSS goal's measure`);
        const alone = await runScenario({ ...run, n: share, bench: options, restart: false });
        sharded.push({ ...result, round, alone: aloneFigures(alone) });
        await writeFile(
          resultFile,
          `${JSON.stringify({ startedAt: stamp, machine, options, sharded }, null, 2)}\n`,
        );
        continue;
      }
      const result = await runScenario({
        ...run,
        n,
        bench: options,
        restart: options.restart && n === Math.max(...options.n),
      });
      results.push({ ...result, round });
      // A later N failing keeps the figures of the earlier ones.
      await writeFile(
        resultFile,
        `${JSON.stringify({ startedAt: stamp, machine, options: { ...options, revisionPollMs }, idealFormula: IDEAL_FORMULA, results }, null, 2)}\n`,
      );
      const chart = join(RESULTS_DIR, `${roundStamp}.svg`);
      await writeReadyChart(
        results.filter((r) => r.round === round && r.tree === tree.label),
        options,
        chart,
      );
      if (!pictures.includes(chart)) pictures.push(chart);
    }
    await stopCluster();
  }
  if (options.replicas > 1) {
    process.stdout.write(`\n${formatShardedReport(sharded)}\n\nwritten: ${resultFile}\n`);
    return;
  }
  for (const r of results.filter((r) => r.restart)) {
    const tree = trees.length > 1 ? `-${r.tree.replace(/[^\w.-]/g, '_')}` : '';
    const chart = join(
      RESULTS_DIR,
      `${options.repeat > 1 ? `${stamp}-r${r.round}` : stamp}${tree}-restart.svg`,
    );
    await writeRestartChart(r, options, chart);
    pictures.push(chart);
  }
  process.stdout.write(
    `\n${formatReport(results, options, revisionPollMs)}\n\nwritten: ${resultFile}\npictures: ${pictures.join(', ')}\n`,
  );
}

/** Time to all Ready after the last apply against the ideal, per N of one round. */
async function writeReadyChart(results: readonly ScenarioResult[], options: BenchOptions, file: string) {
  await writeFile(
    file,
    readyChartSvg(
      results.map((r) => ({
        n: r.n,
        readyMs: r.convergence.readyMs,
        idealMs: r.convergence.idealMs,
        idealFirstReadyMs: r.convergence.idealFirstReadyMs,
      })),
      `AgentDeployments Ready after the last apply (${options.latencyMs} ms/call, ${options.workers} workers)`,
    ),
  );
}

/** The deployments observed after a restart beside N converged objects. */
async function writeRestartChart(result: ScenarioResult, options: BenchOptions, file: string) {
  const r = result.restart;
  if (!r) return;
  await writeFile(
    file,
    readyChartSvg(
      [
        {
          n: r.n,
          readyMs: r.observedMs,
          // One listing of 100 ids per call once the process is ready.
          idealMs: r.readyMs + Math.ceil(r.n / 100) * options.latencyMs,
          idealFirstReadyMs: r.readyMs,
        },
      ],
      `A restart beside ${r.n} converged AgentDeployments: deployments observed (${options.latencyMs} ms/call)`,
      {
        done: 'observed',
        axis: 'time after the new process was spawned; share of the N deployments listed or read',
      },
    ),
  );
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
let options: BenchOptions;
try {
  options = parseBenchOptions(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}\n`);
  process.exit(2);
}
try {
  await main(options);
} catch (err) {
  if (!interrupted) log(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  if (!interrupted) await cleanup.runAll(log);
}
