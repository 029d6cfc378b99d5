import { describe, expect, it } from 'vitest';
import { clusterCostRows, treeComparison } from './cluster-report.ts';
import type { RoundResult } from './report.ts';

/** A result with only what these lines read. */
const run = (tree: string, n: number, round: number, apiServerMs: number, bytes: number) =>
  ({
    tree,
    n,
    round,
    cpu: { convergenceSeconds: (10 * n) / 1000 },
    convergence: { ratio: 1.1 },
    cluster: {
      apiServerCpuMsPerObject: apiServerMs,
      etcdCpuMsPerObject: 4,
      writesPerObjectByOperation: { 'PATCH agentdeployments/status': 2, 'POST events': 2 },
      writesPerObject: 4,
      writeBytesPerObjectByOperation: { 'patch agentdeployments': bytes - 1000, 'create events': 1000 },
      writeBytesPerObject: bytes,
    },
  }) as unknown as RoundResult;

describe('clusterCostRows', () => {
  it('one row per figure and per operation, a cell per result', () => {
    const results = [run('a@1', 200, 1, 34.567, 3000), run('b@2', 200, 1, 20, 2500)];
    const col = (f: (r: RoundResult) => string) => results.map(f);
    expect(clusterCostRows(results, col)).toEqual([
      ['API server CPU per object, apply to all Ready', '34.57 ms', '20.00 ms'],
      ['etcd CPU per object', '4.00 ms', '4.00 ms'],
      ['  controller CPU per object (beside)', '10.00 ms', '10.00 ms'],
      ['Kubernetes writes per object (the controller’s)', '4', '4'],
      ['  PATCH agentdeployments/status', '2', '2'],
      ['  POST events', '2', '2'],
      ['  request bytes per object', '3000', '2500'],
      ['    create events', '1000', '1000'],
      ['    patch agentdeployments', '2000', '1500'],
    ]);
  });
});

describe('treeComparison', () => {
  it.each([
    { name: 'one tree: nothing to compare', results: [run('a@1', 200, 1, 30, 3000)], want: [] },
    {
      name: 'two trees: the medians over rounds, the first tree first and the change from it',
      results: [
        run('base@3e44479', 200, 1, 34, 3000),
        run('main@845f7b1', 200, 1, 20, 2000),
        run('base@3e44479', 200, 2, 36, 3000),
        run('main@845f7b1', 200, 2, 16, 2000),
      ],
      want: [
        'N = 200, API server CPU per object: base@3e44479 35.00 ms; main@845f7b1 18.00 ms (−48.6%)',
        'N = 200, controller CPU per object: base@3e44479 10.00 ms; main@845f7b1 10.00 ms (+0.0%)',
        'N = 200, Kubernetes writes per object: base@3e44479 4; main@845f7b1 4 (+0.0%)',
        'N = 200, request bytes per object: base@3e44479 3000 B; main@845f7b1 2000 B (−33.3%)',
        'N = 200, all Ready / ideal: base@3e44479 1.10×; main@845f7b1 1.10× (+0.0%)',
      ],
    },
    {
      name: 'a tree without a result at an N shows a dash',
      results: [run('a@1', 100, 1, 30, 3000), run('b@2', 200, 1, 20, 2000), run('a@1', 200, 1, 40, 3000)],
      want: expect.arrayContaining([
        'N = 100, API server CPU per object: a@1 30.00 ms; b@2 -',
        'N = 200, API server CPU per object: a@1 40.00 ms; b@2 20.00 ms (−50.0%)',
      ]),
    },
  ])('$name', ({ results, want }) => {
    expect(treeComparison(results)).toEqual(want);
  });
});
