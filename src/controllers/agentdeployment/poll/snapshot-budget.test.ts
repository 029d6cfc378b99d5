/**
 * The per-namespace budget of deployment snapshots: its accounting as a table, then the batched poll
 * consulting it (a scripted client answering each id with a deployment of a chosen size).
 */

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ControlPlaneClient } from '../../../controlplane/client.ts';
import { type Credentials, credentialsKey } from '../../../controlplane/credentials.ts';
import { BudgetExceededError } from '../../../controlplane/errors.ts';
import type { Deployment } from '../../../controlplane/schemas.ts';
import { deploymentAnswer } from '../../../simulator/test-support.ts';
import { DeploymentObserver } from './observer.ts';
import {
  type Charge,
  NAMESPACE_DEPLOYMENT_BUDGET_SETTING,
  SnapshotBudget,
  snapshotBytes,
} from './snapshot-budget.ts';

type Op = ['charge', string, string, number, boolean] | ['release', string];

describe('SnapshotBudget (limit 100 bytes)', () => {
  const rows: { name: string; ops: Op[]; used: Record<string, number> }[] = [
    {
      name: 'snapshots fit up to the limit, not a byte past it',
      ops: [
        ['charge', 'a', 'x', 60, true],
        ['charge', 'a', 'y', 40, true],
        ['charge', 'a', 'z', 1, false],
      ],
      used: { a: 100 },
    },
    {
      name: 'a snapshot charged again replaces its own charge',
      ops: [
        ['charge', 'a', 'x', 60, true],
        ['charge', 'a', 'x', 90, true],
      ],
      used: { a: 90 },
    },
    {
      name: 'one grown past the room left is no longer held nor charged',
      ops: [
        ['charge', 'a', 'x', 60, true],
        ['charge', 'a', 'y', 30, true],
        ['charge', 'a', 'x', 80, false],
      ],
      used: { a: 30 },
    },
    {
      name: 'one alone larger than the limit never fits',
      ops: [['charge', 'a', 'x', 101, false]],
      used: { a: 0 },
    },
    {
      name: 'namespaces are charged apart: a full one takes no room from another',
      ops: [
        ['charge', 'a', 'x', 100, true],
        ['charge', 'b', 'y', 100, true],
        ['charge', 'a', 'z', 1, false],
      ],
      used: { a: 100, b: 100 },
    },
    {
      name: 'releasing a snapshot frees its room',
      ops: [
        ['charge', 'a', 'x', 70, true],
        ['charge', 'a', 'y', 70, false],
        ['release', 'x'],
        ['charge', 'a', 'y', 70, true],
      ],
      used: { a: 70 },
    },
    {
      name: "a snapshot now held for another namespace's object leaves the first one's room",
      ops: [
        ['charge', 'a', 'x', 70, true],
        ['charge', 'b', 'x', 70, true],
        ['charge', 'a', 'y', 100, true],
      ],
      used: { a: 100, b: 70 },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const budget = new SnapshotBudget(100);
      // What each snapshot (by key) is charged, as the observer keeps it with the snapshot.
      const held = new Map<string, Charge>();
      for (const op of row.ops) {
        if (op[0] === 'release') {
          const charge = held.get(op[1]);
          if (charge) budget.release(charge);
          held.delete(op[1]);
          continue;
        }
        const [, namespace, key, bytes, fits] = op;
        const account = budget.charge(namespace, bytes, held.get(key));
        held.delete(key);
        expect(account !== undefined, `${op.join(' ')}`).toBe(fits);
        if (account) held.set(key, { account, bytes });
      }
      for (const [namespace, bytes] of Object.entries(row.used)) expect(budget.used(namespace)).toBe(bytes);
    });
  }

  it('what an object past it reads names the setting, the namespace and the sizes', () => {
    const err = new SnapshotBudget(100).exceeded('team', 'd-1', 150);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err.message).toContain(NAMESPACE_DEPLOYMENT_BUDGET_SETTING);
    expect(err.message).toContain('namespace team');
    expect(err.message).toMatch(/d-1 \(150 bytes\).*100 bytes/);
  });
});

/** A deployment whose kept JSON is about `bytes` long. */
const deploymentOf = (id: string, bytes: number): Deployment =>
  deploymentAnswer(id, {
    name: id,
    source_revision_config: { repo_commit_sha: 'x'.repeat(bytes) },
  }) as Deployment;

const SIZE = 1_000;
const sizeOf = (id: string) => snapshotBytes(deploymentOf(id, SIZE));

/** The batched poll under a budget of 2.5 deployments, every id answered at SIZE (or `sizes`). */
function observing(sizes: Map<string, number> = new Map()) {
  const changed: string[] = [];
  const client = {
    listDeployments: async ({ deploymentIds }: { deploymentIds: string[] }) => ({
      resources: deploymentIds.map((id) => deploymentOf(id, sizes.get(id) ?? SIZE)),
      offset: 0,
    }),
  } as unknown as ControlPlaneClient;
  const budget = new SnapshotBudget(Math.floor(sizeOf('d-0') * 2.5));
  const observer = new DeploymentObserver({
    pollIntervalMs: 60_000,
    budget,
    clientFor: () => client,
    onChange: (key) => changed.push(key),
    logger: pino({ level: 'silent' }),
  });
  return { observer, changed, budget };
}

// The controller's own credentials, shared by every namespace.
const shared: Credentials = { baseUrl: 'https://cp.example', apiKey: 'controller-key' };
const identity = credentialsKey(shared);

describe('the batched poll under the budget', () => {
  it("holds a namespace's snapshots up to its budget; the others are not held, their objects told once; another namespace on the same credentials is untouched", async () => {
    const { observer, changed } = observing();
    for (const i of [0, 1, 2, 3]) observer.track(`big/obj-${i}`, shared, `d-${i}`);
    observer.track('small/obj', shared, 'd-small');
    await observer.pollOnce();
    const held = [0, 1, 2, 3].filter((i) => observer.fresh(identity, `d-${i}`) !== undefined);
    expect(held).toHaveLength(2);
    expect(observer.fresh(identity, 'd-small')).toBeDefined();
    const told = [...changed].sort();
    expect(told).toHaveLength(2);
    expect(told.every((k) => k.startsWith('big/'))).toBe(true);
    await observer.pollOnce();
    expect(changed).toHaveLength(2);
  });

  it("an object's own read past the budget gets BudgetExceeded naming the setting, and nothing is held", () => {
    const { observer, budget } = observing();
    expect(observer.remember(identity, deploymentOf('d-0', SIZE), 'big/obj-0')).toBeUndefined();
    expect(observer.remember(identity, deploymentOf('d-1', SIZE), 'big/obj-1')).toBeUndefined();
    const err = observer.remember(identity, deploymentOf('d-2', SIZE), 'big/obj-2');
    expect(err?.message).toContain(NAMESPACE_DEPLOYMENT_BUDGET_SETTING);
    expect(observer.fresh(identity, 'd-2')).toBeUndefined();
    expect(budget.used('big')).toBe(2 * sizeOf('d-0'));
  });

  it('a deployment grown past the room left is dropped, and an object gone frees its room', async () => {
    const sizes = new Map<string, number>();
    const { observer, budget } = observing(sizes);
    for (const i of [0, 1]) observer.track(`big/obj-${i}`, shared, `d-${i}`);
    await observer.pollOnce();
    sizes.set('d-1', SIZE * 2);
    await observer.pollOnce();
    expect(observer.fresh(identity, 'd-1')).toBeUndefined();
    expect(budget.used('big')).toBe(sizeOf('d-0'));
    observer.untrack('big/obj-0');
    expect(budget.used('big')).toBe(0);
    await observer.pollOnce();
    expect(observer.fresh(identity, 'd-1')).toBeDefined();
  });

  it('an object tracking another deployment (adopted, recreated) frees the room of the one before', async () => {
    const { observer, budget } = observing();
    observer.track('big/obj-0', shared, 'd-0');
    await observer.pollOnce();
    expect(budget.used('big')).toBe(sizeOf('d-0'));
    observer.track('big/obj-0', shared, 'd-9');
    expect(observer.fresh(identity, 'd-0')).toBeUndefined();
    expect(budget.used('big')).toBe(0);
    await observer.pollOnce();
    expect(budget.used('big')).toBe(sizeOf('d-9'));
  });
});
