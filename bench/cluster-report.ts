/** The report's lines on what the cluster paid (cluster-cost.ts), and the trees compared side by side. */
import { median } from './pool.ts';
import type { RoundResult } from './report.ts';

type Row = [string, ...string[]];

const ms = (v: number) => `${v.toFixed(2)} ms`;
const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

/** The controller's CPU per converged object, in ms. */
export const controllerCpuMsPerObject = (r: RoundResult) => (r.cpu.convergenceSeconds * 1000) / r.n;

/** Rows of the table: the API server's and etcd's CPU, the controller's writes and bytes, per object. */
export function clusterCostRows(
  results: readonly RoundResult[],
  col: (f: (r: RoundResult) => string) => string[],
): Row[] {
  const operations = (pick: (r: RoundResult) => Record<string, number>) =>
    [...new Set(results.flatMap((r) => Object.keys(pick(r))))].sort();
  const writes = (r: RoundResult) => r.cluster.writesPerObjectByOperation;
  const bytes = (r: RoundResult) => r.cluster.writeBytesPerObjectByOperation;
  return [
    ['API server CPU per object, apply to all Ready', ...col((r) => ms(r.cluster.apiServerCpuMsPerObject))],
    ['etcd CPU per object', ...col((r) => ms(r.cluster.etcdCpuMsPerObject))],
    ['  controller CPU per object (beside)', ...col((r) => ms(controllerCpuMsPerObject(r)))],
    ['Kubernetes writes per object (the controller’s)', ...col((r) => num(r.cluster.writesPerObject))],
    ...operations(writes).map((op): Row => [`  ${op}`, ...col((r) => num(writes(r)[op] ?? 0))]),
    ['  request bytes per object', ...col((r) => Math.round(r.cluster.writeBytesPerObject).toString())],
    ...operations(bytes).map(
      (op): Row => [`    ${op}`, ...col((r) => Math.round(bytes(r)[op] ?? 0).toString())],
    ),
  ];
}

const change = (from: number, to: number) =>
  from === 0 ? '' : ` (${to >= from ? '+' : '−'}${Math.abs((to / from - 1) * 100).toFixed(1)}%)`;

/**
 * With more than one tree: for each N, each figure's median over the rounds per tree, the first tree
 * first and each other's change from it.
 */
export function treeComparison(results: readonly RoundResult[]): string[] {
  const trees = [...new Set(results.map((r) => r.tree))];
  if (trees.length < 2) return [];
  const figures: [string, (r: RoundResult) => number, (v: number) => string][] = [
    ['API server CPU per object', (r) => r.cluster.apiServerCpuMsPerObject, ms],
    ['controller CPU per object', controllerCpuMsPerObject, ms],
    ['Kubernetes writes per object', (r) => r.cluster.writesPerObject, num],
    ['request bytes per object', (r) => r.cluster.writeBytesPerObject, (v) => `${Math.round(v)} B`],
    ['all Ready / ideal', (r) => r.convergence.ratio, (v) => `${v.toFixed(2)}×`],
  ];
  const ns = [...new Set(results.map((r) => r.n))].sort((a, b) => a - b);
  return ns.flatMap((n) =>
    figures.map(([name, value, format]) => {
      const medians = trees.map((tree) => {
        const values = results.filter((r) => r.n === n && r.tree === tree).map(value);
        return values.length === 0 ? undefined : median(values);
      });
      const first = medians[0];
      const cells = trees.map((tree, i) => {
        const v = medians[i];
        if (v === undefined) return `${tree} -`;
        return `${tree} ${format(v)}${i > 0 && first !== undefined ? change(first, v) : ''}`;
      });
      return `N = ${n}, ${name}: ${cells.join('; ')}`;
    }),
  );
}
