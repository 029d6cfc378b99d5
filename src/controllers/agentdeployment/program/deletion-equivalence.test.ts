/**
 * One deletion chain, two readers: for many worlds of a deleted object (tables, then random combinations),
 * the controller's finalize step (a real pass: Kubernetes in memory, the control plane the simulator over
 * HTTP) and `kubectl agd plan --prune` reach the same first write (the DELETE), the same release, or the
 * same wait or stall with the same reason. Taking any gate out of the deletion chain changes what the
 * controller does in some world, so the comparison sees every gate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELETION_GATES } from '../../../reconcile/agentdeployment/deletion/chain.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';
import { controllerVerdict, planVerdict } from './world-verdicts.test-support.ts';
import { BASE, buildWorld, WORLD_SIMULATOR, type WorldSpec } from './worlds.test-support.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator(WORLD_SIMULATOR);
});
afterAll(() => sim.close());

const DELETED: WorldSpec = { ...BASE, deleting: true };
const OWNED: Partial<WorldSpec> = { platform: 'inSync', record: 'recorded' };

const TABLE: [string, Partial<WorldSpec>, string][] = [
  ['owning its deployment: deleted', OWNED, 'delete'],
  ['the finalizer off already: let go, nothing sent', { ...OWNED, withoutFinalizer: true }, 'orphan'],
  ['never allowed the default credentials, owning nothing: released', { scope: 'notAllowed' }, 'orphan'],
  ['deletionPolicy Orphan: the deployment left', { ...OWNED, deletionPolicy: 'Orphan' }, 'orphan'],
  ['observe-only: the deployment left', { ...OWNED, policy: 'observeOnly' }, 'orphan'],
  [
    'default credentials its namespace may no longer use: waits',
    { ...OWNED, scope: 'notAllowed' },
    'wait:DefaultCredentialsNotAllowed',
  ],
  [
    'its credentials missing: waits',
    { ...OWNED, credentials: 'secretMissing' },
    'wait:WaitingForCredentials',
  ],
  [
    'its credentials naming a control plane not allowed: stalled',
    { ...OWNED, credentials: 'secretNotAllowed' },
    'stall:ControlPlaneNotAllowed',
  ],
  ['Secrets past the budget: stalled', { ...OWNED, secrets: 'huge' }, 'stall:BudgetExceeded'],
  ["a copied status, another object's id: left to it", { ...OWNED, other: 'recordsSameId' }, 'orphan'],
  ['its lost create, found: deleted', { platform: 'inSync', record: 'pendingAfter' }, 'delete'],
  [
    'a create without an answer, nothing yet: waits for a late commit',
    { record: 'pendingRecent' },
    'wait:Deleting',
  ],
  ['owning nothing: released', {}, 'orphan'],
  ['its recorded deployment gone: released', { record: 'recordedGone' }, 'orphan'],
  [
    'recorded under other credentials, not found: stalled',
    { record: 'otherTenant' },
    'stall:CredentialsChanged',
  ],
  ['while the platform deletes it: waits', { platform: 'deleting', record: 'recorded' }, 'wait:Deleting'],
  ['a Deny window open: the DELETE waits', { ...OWNED, window: 'denyNow' }, 'wait:WindowClosed'],
  ['a Deny window open, owning nothing: released', { window: 'denyNow' }, 'orphan'],
];

const agree = async (spec: WorldSpec) => {
  const world = await buildWorld(sim, spec);
  const plan = await planVerdict(sim, world);
  const controller = await controllerVerdict(sim, world);
  return { plan, controller };
};

/** Everything the controller's pass did (each write, then what it left), `threw` when it threw. */
const traceOf = async (spec: WorldSpec, deletionGates = DELETION_GATES) => {
  const world = await buildWorld(sim, spec);
  const trace: string[] = [];
  await controllerVerdict(sim, world, { deletionGates, trace }).catch((err: Error) =>
    trace.push(`threw ${err.message}`),
  );
  return trace.join(' ');
};

describe('the finalize step does first what plan --prune prints', () => {
  it.each(TABLE)('%s', async (_, over, expected) => {
    const { plan, controller } = await agree({ ...DELETED, ...over });
    expect({ controller, plan }).toEqual({ controller: expected, plan: expected });
  });

  it('in random combinations of every dimension', { timeout: 120_000 }, async () => {
    // spec.analysis plays no part in a deletion.
    const choices: { [K in Exclude<keyof WorldSpec, 'analysis'>]-?: readonly WorldSpec[K][] } = {
      platform: ['none', 'inSync', 'inSync', 'deleting', 'drifted'],
      record: [
        'none',
        'recorded',
        'recorded',
        'recordedGone',
        'otherTenant',
        'pendingAfter',
        'pendingBefore',
        'pendingRecent',
      ],
      annotation: ['none', 'none', 'paused'],
      window: ['none', 'none', 'denyNow'],
      policy: ['full', 'full', 'observeOnly'],
      credentials: ['default', 'default', 'secretAllowed', 'secretNotAllowed', 'secretMissing'],
      scope: ['allowed', 'allowed', 'notAllowed'],
      secrets: ['present', 'present', 'present', 'missing', 'huge'],
      other: ['none', 'none', 'olderSameName', 'olderRefused', 'recordsSameId'],
      held: [false, false, true],
      deleting: [true],
      revision: ['deployed'],
      remediation: ['none'],
      deletionPolicy: ['Delete', 'Delete', 'Orphan'],
      withoutFinalizer: [false, false, false, true],
    };
    // A fixed seed (mulberry32): a failure names the world, and the same worlds run every time.
    let seed = 51;
    const next = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const disagreements: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const spec = Object.fromEntries(
        Object.entries(choices).map(([k, values]) => [k, values[next(values.length)]]),
      ) as unknown as WorldSpec;
      const { plan, controller } = await agree(spec);
      seen.add(controller);
      if (plan !== controller)
        disagreements.push(`${JSON.stringify(spec)}: controller ${controller}, plan ${plan}`);
    }
    expect(disagreements).toEqual([]);
    expect([...seen].sort()).toEqual(expect.arrayContaining(['delete', 'orphan', 'wait:Deleting']));
  });

  it('taking any gate out changes what the controller does in some world', { timeout: 120_000 }, async () => {
    const whole = new Map<string, string>();
    for (const [name, over] of TABLE) whole.set(name, await traceOf({ ...DELETED, ...over }));
    const unseen: string[] = [];
    for (const [gate] of DELETION_GATES) {
      const without = DELETION_GATES.filter(([n]) => n !== gate);
      let seen = false;
      for (const [name, over] of TABLE) {
        if ((await traceOf({ ...DELETED, ...over }, without)) !== whole.get(name)) {
          seen = true;
          break;
        }
      }
      if (!seen) unseen.push(gate);
    }
    expect(unseen).toEqual([]);
  });
});
