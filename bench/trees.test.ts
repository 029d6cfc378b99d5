import { describe, expect, it } from 'vitest';
import { type ControllerTree, controllerEnv, treeLabel } from './trees.ts';

describe('treeLabel', () => {
  it.each([
    { dir: '/work/wt-base', commit: '3e44479', dirty: false, want: 'wt-base@3e44479' },
    { dir: '/work/wt-cluster', commit: '845f7b1', dirty: true, want: 'wt-cluster@845f7b1+' },
  ])('$want', ({ dir, commit, dirty, want }) => {
    expect(treeLabel(dir, commit, dirty)).toBe(want);
  });
});

describe('controllerEnv', () => {
  const tree: ControllerTree = {
    label: 'base@1',
    dir: '/base',
    runDir: '/base',
    envByFlag: new Map([
      ['workers', 'WORKERS'],
      ['reconcile-rate', 'RECONCILE_RATE'],
    ]),
  };
  it("sets the options the tree's controller has, under its names, and leaves out the others", () => {
    expect(
      controllerEnv(tree, { workers: '4', 'reconcile-rate': '1000', 'control-plane-qps': '1000' }),
    ).toEqual({
      WORKERS: '4',
      RECONCILE_RATE: '1000',
    });
  });
});
