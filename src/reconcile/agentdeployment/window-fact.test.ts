import { describe, expect, it } from 'vitest';
import type { WindowSpec } from '../../lib/schedule/windows.ts';
import type { PolicyWindows } from './policy-windows.ts';
import { closedWindowOf, deletionHolders } from './window-fact.ts';

// 2026-06-01T00:30:00Z: inside a Deny window opening at midnight for 2h.
const NOW = new Date('2026-06-01T00:30:00Z');
const DENY_NOW: WindowSpec = { kind: 'Deny', schedule: '0 0 * * *', duration: '2h' };
const DENY_LATER: WindowSpec = { kind: 'Deny', schedule: '0 12 * * *', duration: '2h' };
const policy = (windows: WindowSpec[]): PolicyWindows => ({
  name: 'freeze',
  windows,
  manualOverride: true,
  allowRollback: true,
});

describe('closedWindowOf: what holds a deletion', () => {
  it.each<[string, WindowSpec[] | undefined, PolicyWindows[], string | undefined]>([
    ['no windows anywhere: nothing', undefined, [], undefined],
    ['its own Deny window open: held', [DENY_NOW], [], 'the deletion waits: spec.deploymentWindows[0]'],
    [
      "a policy's Deny window open: held, naming the policy",
      [],
      [policy([DENY_NOW])],
      'the deletion waits: DeploymentWindowPolicy/freeze windows[0]',
    ],
    ['every window closed for later: nothing', [DENY_LATER], [policy([DENY_LATER])], undefined],
    [
      "a policy's window nothing can read holds nothing (its status says so)",
      [],
      [policy([{ ...DENY_NOW, timeZone: 'Mars/Olympus' }])],
      undefined,
    ],
  ])('%s', (_name, own, policies, expected) => {
    const held = closedWindowOf(own, policies, NOW);
    if (expected === undefined) expect(held).toBeUndefined();
    else expect(held?.message).toContain(expected);
  });
});

describe('closedWindowOf: the policies not known (the controller has not listed them)', () => {
  it('holds the deletion, saying why; its own closed window says first', () => {
    const unknown = { unknown: 'the DeploymentWindowPolicies are not listed yet' };
    expect(closedWindowOf(undefined, unknown, NOW)?.message).toBe(
      'the deletion waits: the DeploymentWindowPolicies are not listed yet',
    );
    expect(closedWindowOf([DENY_NOW], unknown, NOW)?.message).toContain('spec.deploymentWindows[0]');
  });
});

describe("deletionHolders: what holds a DELETE, for the policies' status", () => {
  it.each<[string, WindowSpec[] | undefined, PolicyWindows[], { policies: string[]; own: boolean }]>([
    ['nothing closed', [DENY_LATER], [policy([DENY_LATER])], { policies: [], own: false }],
    ['its own window', [DENY_NOW], [policy([DENY_LATER])], { policies: [], own: true }],
    ["a policy's", [], [policy([DENY_NOW])], { policies: ['freeze'], own: false }],
    [
      'a window nothing can read: none',
      [],
      [policy([{ ...DENY_NOW, timeZone: 'Mars/Olympus' }])],
      { policies: [], own: false },
    ],
  ])('%s', (_name, own, policies, expected) => {
    expect(deletionHolders(own, policies, NOW)).toEqual(expected);
  });
});
