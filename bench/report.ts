/** The printed table: one row per figure, one column per N. */
import { MINIMUM_CALLS_TOTAL } from './calls.ts';
import { clusterCostRows, treeComparison } from './cluster-report.ts';
import { IDEAL_FORMULA } from './ideal.ts';
import type { BenchOptions } from './options.ts';
import { median } from './pool.ts';
import type { MemoryBreakdown } from './process-memory.ts';
import type { RestartResult } from './restart.ts';
import type { ScenarioResult } from './scenario.ts';

/** One scenario's result and the round of `--repeat` it ran in (1 without it). */
export type RoundResult = ScenarioResult & { round: number };

const ms = (v: number | undefined) => (v === undefined ? '-' : `${Math.round(v)} ms`);
const x = (v: number) => `${v.toFixed(2)}×`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

function rows(results: readonly RoundResult[]): [string, ...string[]][] {
  const rounds = new Set(results.map((r) => r.round)).size;
  const trees = new Set(results.map((r) => r.tree)).size;
  const operations = [...new Set(results.flatMap((r) => Object.keys(r.calls.perObjectByOperation)))].sort();
  const steadyOperations = [
    ...new Set(results.flatMap((r) => Object.keys(r.steady.callsPerIntervalByOperation))),
  ].sort();
  const col = (f: (r: RoundResult) => string) => results.map(f);
  return [
    ['N', ...col((r) => (rounds > 1 ? `${r.n} (round ${r.round})` : String(r.n)))],
    ...(trees > 1 ? [['controller tree', ...col((r) => r.tree)] as [string, ...string[]]] : []),
    ['apply (all N created)', ...col((r) => ms(r.apply.durationMs))],
    ['all Ready after last apply', ...col((r) => ms(r.convergence.fromLastApplyMs))],
    ['  (after first apply)', ...col((r) => ms(r.convergence.fromFirstApplyMs))],
    ['  ideal', ...col((r) => ms(r.convergence.idealMs))],
    ['  (API server write latency)', ...col((r) => ms(r.convergence.kubeWriteMs))],
    ['  ratio to ideal', ...col((r) => x(r.convergence.ratio))],
    ['deployments on control plane', ...col((r) => String(r.convergence.deploymentsOnControlPlane))],
    ['kube writes per object to Ready', ...col((r) => num(r.convergence.kubeWritesPerObject))],
    ['calls per converged object', ...col((r) => num(r.calls.perObject))],
    ...operations.map((op): [string, ...string[]] => [
      `  ${op}`,
      ...col((r) => num(r.calls.perObjectByOperation[op] ?? 0)),
    ]),
    ['  minimum', ...col(() => String(MINIMUM_CALLS_TOTAL))],
    ['  ratio to minimum', ...col((r) => x(r.calls.ratio))],
    ['steady: calls per poll interval', ...col((r) => num(r.steady.callsPerInterval))],
    ...steadyOperations.map((op): [string, ...string[]] => [
      `  ${op}`,
      ...col((r) => num(r.steady.callsPerIntervalByOperation[op] ?? 0)),
    ]),
    [
      '  target (deployment calls)',
      ...col((r) => `${r.steady.targetCalls} (measured ${num(r.steady.deploymentCallsPerInterval)})`),
    ],
    ['steady: status writes in the window', ...col((r) => `${r.steady.statusWrites} (target 0)`)],
    ['steady: event writes in the window', ...col((r) => `${r.steady.eventWrites} (target 0)`)],
    ...[...new Set(results.flatMap((r) => Object.keys(r.steady.eventWritesByReason)))]
      .sort()
      .map((reason): [string, ...string[]] => [
        `  reason ${reason}`,
        ...col((r) => String(r.steady.eventWritesByReason[reason] ?? 0)),
      ]),
    ['controller CPU, apply to all Ready', ...col((r) => `${r.cpu.convergenceSeconds.toFixed(1)} s`)],
    [
      '  per object: main thread / V8 workers / other',
      ...col((r) => {
        const ms = (seconds: number) => ((seconds * 1000) / r.n).toFixed(2);
        const t = r.cpu.convergenceByThread;
        return `${ms(t.mainThread)} / ${ms(t.v8Workers)} / ${ms(t.other)} ms`;
      }),
    ],
    ...clusterCostRows(results, col),
    [
      'AgentDeployment passes per object, apply to all Ready',
      ...col((r) => r.passesPerObjectToReady.toFixed(2)),
    ],
    ['controller CPU per steady poll interval', ...col((r) => `${r.cpu.steadyIntervalSeconds.toFixed(2)} s`)],
    ...memoryRows('idle (no objects)', (r) => r.memory.idle, col),
    ...memoryRows('at all Ready', (r) => r.memory.afterConvergence, col),
    ...memoryRows('after the steady intervals', (r) => r.memory.steady, col),
    ['controller peak RSS', ...col((r) => mib(r.memory.steady.peakRssBytes))],
    ['reaction update→PATCH p50', ...col((r) => ms(r.reaction.p50Ms))],
    ['reaction update→PATCH p99', ...col((r) => `${ms(r.reaction.p99Ms)} (of ${r.reaction.updates})`)],
    ...restartRows(results, col),
  ];
}

/** The restart's figures, in the column of the N it ran at ('-' in the others). */
function restartRows(
  results: readonly ScenarioResult[],
  col: (f: (r: ScenarioResult) => string) => string[],
): [string, ...string[]][] {
  if (!results.some((r) => r.restart)) return [];
  const at = (f: (r: RestartResult) => string) => col((r) => (r.restart ? f(r.restart) : '-'));
  const operations = [
    ...new Set(results.flatMap((r) => Object.keys(r.restart?.callsByOperation ?? {}))),
  ].sort();
  return [
    ['restart: deployments changed while down', ...at((r) => String(r.drifted))],
    ['restart: control-plane calls until settled', ...at((r) => String(r.calls))],
    ...operations.map((op): [string, ...string[]] => [
      `  ${op}`,
      ...at((r) => String(r.callsByOperation[op] ?? 0)),
    ]),
    ['  batched listings (polls) among them', ...at((r) => String(r.listings))],
    ['  GETs of unchanged deployments', ...at((r) => `${r.unchangedDeploymentGets} (target 0)`)],
    [
      'restart: object writes, changed / others',
      ...at((r) => `${r.kubeWrites.drifted} / ${r.kubeWrites.others} (target 0)`),
    ],
    [
      'restart: event writes, changed / others',
      ...at((r) => `${r.eventWrites.drifted} / ${r.eventWrites.others} (target 0)`),
    ],
    ['restart: ready after spawn', ...at((r) => ms(r.readyMs))],
    ['restart: drift fixed after spawn', ...at((r) => ms(r.driftFixedMs))],
    ['restart: all observed after spawn', ...at((r) => ms(r.allObservedMs))],
    ['restart: settled (queue drained) after spawn', ...at((r) => ms(r.settledMs))],
    [
      'restart: peak RSS (chart request)',
      ...at((r) => `${mib(r.peakRssBytes)} (${mib(r.memoryRequestBytes)})`),
    ],
  ];
}

/** RSS, what it is made of, and the V8 heap, at one moment of the run. */
function memoryRows(
  when: string,
  at: (r: ScenarioResult) => MemoryBreakdown,
  col: (f: (r: ScenarioResult) => string) => string[],
): [string, ...string[]][] {
  return [
    [`controller RSS, ${when}`, ...col((r) => mib(at(r).rssBytes))],
    [
      '  file-backed (node binary) / anonymous',
      ...col((r) => `${mib(at(r).fileBytes)} / ${mib(at(r).anonymousBytes)}`),
    ],
    ['  V8 heap total / used', ...col((r) => `${mib(at(r).heapTotalBytes)} / ${mib(at(r).heapUsedBytes)}`)],
    ['  external (Buffers) / sockets', ...col((r) => `${mib(at(r).externalBytes)} / ${at(r).sockets}`)],
  ];
}

/** Controller CPU per object, first apply to all Ready, in ms. */
const cpuPerObjectMs = (r: ScenarioResult) => (r.cpu.convergenceSeconds * 1000) / r.n;

const percent = (from: number, to: number) =>
  `${to >= from ? '+' : '−'}${Math.abs((to / from - 1) * 100).toFixed(1)}%`;

/**
 * The CPU per object of each N over the rounds and its median, and the growth from the smallest N to the
 * largest: of the medians, and within each round. One round's figure moves with the machine by as much
 * as the goal (10%), so the goal is read on the medians.
 */
export function cpuGrowthSummary(results: readonly RoundResult[]): string[] {
  const ns = [...new Set(results.map((r) => r.n))].sort((a, b) => a - b);
  const smallest = ns[0];
  const largest = ns.at(-1);
  if (smallest === undefined || largest === undefined) return [];
  const perN = new Map(ns.map((n) => [n, results.filter((r) => r.n === n).map(cpuPerObjectMs)]));
  const lines = ns.map((n) => {
    const values = perN.get(n) ?? [];
    return `CPU per object at N = ${n}: ${values.map((v) => v.toFixed(2)).join(', ')} ms (median ${median(values).toFixed(2)})`;
  });
  if (smallest === largest) return lines;
  const rounds = [...new Set(results.map((r) => r.round))].sort((a, b) => a - b);
  const within = rounds.flatMap((round) => {
    const at = (n: number) => results.find((r) => r.round === round && r.n === n);
    const from = at(smallest);
    const to = at(largest);
    return from && to ? [percent(cpuPerObjectMs(from), cpuPerObjectMs(to))] : [];
  });
  lines.push(
    `CPU per object from N = ${smallest} to ${largest}: ${percent(median(perN.get(smallest) ?? []), median(perN.get(largest) ?? []))} (medians)` +
      (rounds.length > 1 ? `; within each round ${within.join(', ')}` : ''),
  );
  return lines;
}

export function formatReport(results: readonly RoundResult[], options: BenchOptions, revisionPollMs: number) {
  const table = rows(results);
  const widths = (table[0] ?? []).map((_, c) => Math.max(...table.map((row) => (row[c] ?? '').length)));
  const line = (row: readonly string[]) =>
    row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join('  ');
  return [
    `latency ${options.latencyMs} ms/call · workers ${options.workers} · poll ${options.pollIntervalMs} ms · ` +
      `revision poll ${revisionPollMs} ms · revision step ${options.revisionStepMs} ms · qps ${options.qps}`,
    '',
    ...table.map(line),
    '',
    ...[...new Set(results.map((r) => r.tree))].flatMap((tree, _, trees) =>
      cpuGrowthSummary(results.filter((r) => r.tree === tree)).map((line) =>
        trees.length > 1 ? `${tree}: ${line}` : line,
      ),
    ),
    '',
    ...treeComparison(results),
    '',
    IDEAL_FORMULA,
    `minimum calls per new object = ${MINIMUM_CALLS_TOTAL}: the name lookup, 1 POST /v2/deployments, 1 read that shows the revision DEPLOYED (the deployment, whose active revision it is)`,
    'steady target: ceil(N/100) deployment calls (batched list) and 0 status or event writes per poll interval',
  ].join('\n');
}
