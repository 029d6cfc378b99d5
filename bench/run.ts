/**
 * `make bench`: the operator against a local API server and the simulator with a fixed latency per call,
 * for each N. Prints a table and writes bench/results/<timestamp>.json. See bench/README.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { buildController } from '../scripts/build.ts';
import { kubeAccessFromFile } from '../src/kube/access.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { readyChartSvg } from './chart.ts';
import { Cleanup } from './cleanup.ts';
import { killLiveControllers } from './controller-process.ts';
import { installCrds } from './crds.ts';
import { IDEAL_FORMULA, REVISION_STEPS } from './ideal.ts';
import { type BenchOptions, parseBenchOptions, USAGE } from './options.ts';
import { formatReport } from './report.ts';
import { runScenario, type ScenarioResult } from './scenario.ts';
import { formatShardedReport, runShardedScenario, type ShardedResult } from './sharded.ts';

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
  const chartFile = join(RESULTS_DIR, `${stamp}.svg`);
  const restartChartFile = join(RESULTS_DIR, `${stamp}-restart.svg`);
  const revisionPollMs = options.revisionPollMs ?? REVISION_STEPS * options.revisionStepMs;

  log('compiling the controller as the image does (scripts/build.ts -> dist/)');
  buildController(resolve(import.meta.dirname, '..', 'dist'));
  log('starting a local API server (etcd + kube-apiserver)');
  const cluster = await startLocalCluster({ log });
  cleanup.add('local cluster', () => cluster.stop());
  await installCrds(cluster.binDir, cluster.kubeconfigPath);
  const access = kubeAccessFromFile(cluster.kubeconfigPath);

  if (options.replicas > 1) {
    const sharded: ShardedResult[] = [];
    for (const n of options.n) {
      if (interrupted) return;
      sharded.push(
        await runShardedScenario({
          n,
          bench: options,
          access,
          kubeconfigPath: cluster.kubeconfigPath,
          resultsDir: RESULTS_DIR,
          stamp,
          cleanup,
          log,
        }),
      );
      await writeFile(
        resultFile,
        `${JSON.stringify({ startedAt: stamp, machine: { cpus: cpus().length, node: process.version }, options, sharded }, null, 2)}\n`,
      );
    }
    process.stdout.write(`\n${formatShardedReport(sharded)}\n\nwritten: ${resultFile}\n`);
    return;
  }
  const results: ScenarioResult[] = [];
  const save = () =>
    writeFile(
      resultFile,
      `${JSON.stringify(
        {
          startedAt: stamp,
          machine: { cpus: cpus().length, node: process.version },
          options: { ...options, revisionPollMs },
          idealFormula: IDEAL_FORMULA,
          results,
        },
        null,
        2,
      )}\n`,
    );
  for (const n of options.n) {
    if (interrupted) return;
    results.push(
      await runScenario({
        n,
        bench: options,
        access,
        kubeconfigPath: cluster.kubeconfigPath,
        resultsDir: RESULTS_DIR,
        stamp,
        cleanup,
        restart: options.restart && n === Math.max(...options.n),
        log,
      }),
    );
    await save(); // a later N failing keeps the figures of the earlier ones
    await writeFile(
      chartFile,
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
  const restarted = results.find((r) => r.restart);
  if (restarted?.restart) {
    const r = restarted.restart;
    await writeFile(
      restartChartFile,
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
  process.stdout.write(
    `\n${formatReport(results, options, revisionPollMs)}\n\nwritten: ${resultFile}\npictures: ${chartFile}${restarted ? `, ${restartChartFile}` : ''}\n`,
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
