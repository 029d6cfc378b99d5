/**
 * One program, two readers: for many worlds (tables, then random combinations of every dimension), the
 * controller's pass (a real pass: Kubernetes in memory, the control plane the simulator over HTTP) and
 * `kubectl agd plan` (its read-only gather) reach the same first write, or the same wait or stall with
 * the same reason. A deleted object is planned as --prune plans it. Taking any gate out of the chain
 * changes the controller's answer in some world, so the comparison sees every gate. Deleting objects
 * have worlds of their own (deletion-equivalence.test.ts), as SandboxTemplates do
 * (controllers/sandboxtemplate/template-equivalence.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_DEPLOYMENT_GATES } from '../../../reconcile/agentdeployment/chain.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';
import { controllerVerdict, planVerdict } from './world-verdicts.test-support.ts';
import { BASE, buildWorld, WORLD_SIMULATOR, type WorldSpec } from './worlds.test-support.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator(WORLD_SIMULATOR);
});
afterAll(() => sim.close());

const TABLE: [string, Partial<WorldSpec>, string][] = [
  ['a new object: created', {}, 'create'],
  ['in sync: nothing sent', { platform: 'inSync', record: 'recorded' }, 'none'],
  ['drifted: patched', { platform: 'drifted', record: 'recorded' }, 'patch'],
  [
    'an immutable change: stalled',
    { platform: 'immutable', record: 'recorded' },
    'stall:ImmutableFieldChanged',
  ],
  ['deleted by someone else: waits', { platform: 'deleting', record: 'recorded' }, 'wait:Deleting'],
  ['paused: nothing', { annotation: 'paused', platform: 'drifted', record: 'recorded' }, 'none'],
  ['a bad poll interval: stalled', { annotation: 'badPollInterval' }, 'stall:InvalidAnnotation'],
  ['held for a person', { held: true }, 'stall:Rejected'],
  ['held, then a reconcile requested', { held: true, annotation: 'reconcileRequested' }, 'create'],
  ['default credentials not allowed', { scope: 'notAllowed' }, 'stall:DefaultCredentialsNotAllowed'],
  [
    'own credentials, allowed, in a refused namespace',
    { scope: 'notAllowed', credentials: 'secretAllowed' },
    'create',
  ],
  ['a control plane not allowed', { credentials: 'secretNotAllowed' }, 'stall:ControlPlaneNotAllowed'],
  ['credentials missing', { credentials: 'secretMissing' }, 'wait:WaitingForCredentials'],
  ['a Secret missing', { secrets: 'missing' }, 'wait:WaitingForSecret'],
  ['Secrets past the budget', { secrets: 'huge' }, 'stall:BudgetExceeded'],
  ['an older object of the name', { other: 'olderSameName' }, 'stall:NameConflict'],
  ['an older observe-only object of the name', { other: 'olderObserveOnly' }, 'create'],
  ['an older object that may not use the credentials', { other: 'olderRefused' }, 'create'],
  ['a live deployment of its name, not its own', { platform: 'inSync' }, 'stall:NameConflict'],
  ['its lost create, found', { platform: 'inSync', record: 'pendingAfter' }, 'none'],
  [
    'a deployment older than its create mark',
    { platform: 'inSync', record: 'pendingBefore' },
    'stall:CreateUnconfirmed',
  ],
  ['adopted', { platform: 'inSync', record: 'adopt' }, 'none'],
  [
    'adopting what another object records',
    { platform: 'inSync', record: 'adopt', other: 'recordsSameId' },
    'stall:AlreadyManaged',
  ],
  ['its recorded deployment gone: created again', { record: 'recordedGone' }, 'create'],
  ['recorded under other credentials', { platform: 'inSync', record: 'otherTenant' }, 'none'],
  [
    'its revision in progress: nothing sent',
    { platform: 'inSync', record: 'recorded', revision: 'inProgress' },
    'none',
  ],
  [
    'its revision failed: stalled',
    { platform: 'inSync', record: 'recorded', revision: 'failed' },
    'stall:RevisionFailed',
  ],
  [
    'its revision failed, a redeploy requested: redeployed',
    { platform: 'inSync', record: 'recorded', revision: 'failedRequested' },
    'redeploy',
  ],
  [
    'its latest revision failed verification, spec.remediation Rollback: rolled back',
    { platform: 'inSync', record: 'recorded', remediation: 'rollbackDue' },
    'redeploy',
  ],
  [
    'rolled back for this spec: held, RolledBack',
    { platform: 'inSync', record: 'recorded', remediation: 'rolledBack' },
    'stall:RolledBack',
  ],
  [
    'rolled back, then a reconcile requested: the spec applied again',
    { platform: 'inSync', record: 'recorded', remediation: 'rolledBack', annotation: 'reconcileRequested' },
    'patch',
  ],
  [
    'rolled back, then an undo by hand: the revision before redeployed',
    { platform: 'inSync', record: 'recorded', remediation: 'rolledBack', annotation: 'undoRequested' },
    'redeploy',
  ],
  ['an undo with no deployment: refused', { annotation: 'undoRequested' }, 'stall:UndoRefused'],
  [
    'the spec back on a deployed revision: redeployed, no build',
    { platform: 'inSync', record: 'recorded', remediation: 'revert' },
    'redeploy',
  ],
  [
    // The 404 is found only by sending (the controller then PATCHes): the plan says the redeploy.
    'a revert to a revision the platform pruned: the redeploy tried first',
    { platform: 'inSync', record: 'recorded', remediation: 'revertGone' },
    'redeploy',
  ],
  [
    'a Deny window open: the PATCH waits',
    { platform: 'drifted', record: 'recorded', window: 'denyNow' },
    'wait:WindowClosed',
  ],
  ['a Deny window open: the create waits', { window: 'denyNow' }, 'wait:WindowClosed'],
  [
    'a Deny window open, overridden: patched',
    { platform: 'drifted', record: 'recorded', window: 'denyNowOverride' },
    'patch',
  ],
  ['a Deny window later: patched', { platform: 'drifted', record: 'recorded', window: 'denyLater' }, 'patch'],
  [
    "a policy's Deny window open: the PATCH waits",
    { platform: 'drifted', record: 'recorded', window: 'policyDenyNow' },
    'wait:WindowClosed',
  ],
  [
    "the override against a policy's window without manualOverride: refused, waits",
    { platform: 'drifted', record: 'recorded', window: 'policyOverrideRefused' },
    'wait:WindowClosed',
  ],
  [
    "the override against a policy's window with manualOverride: patched",
    { platform: 'drifted', record: 'recorded', window: 'policyOverrideAllowed' },
    'patch',
  ],
  [
    'a Deny window open, in sync: nothing to hold',
    { platform: 'inSync', record: 'recorded', window: 'denyNow' },
    'none',
  ],
  [
    'deployed, its analysis to start: measured, still running',
    { platform: 'inSync', record: 'recorded', analysis: 'starts' },
    'none',
  ],
  [
    'its analysis running, nothing due',
    { platform: 'inSync', record: 'recorded', analysis: 'running' },
    'none',
  ],
  [
    'its analysis failed, spec.remediation None: stalled',
    { platform: 'inSync', record: 'recorded', analysis: 'failed' },
    'stall:AnalysisFailed',
  ],
  [
    'its analysis aborted by a person: failed, stalled',
    { platform: 'inSync', record: 'recorded', analysis: 'abortRequested' },
    'stall:AnalysisFailed',
  ],
  [
    'its analysis inconclusive, promoted by a person: Ready',
    { platform: 'inSync', record: 'recorded', analysis: 'promoteRequested' },
    'none',
  ],
  [
    'a condition of spec.analysis that does not compile: stalled',
    { platform: 'inSync', record: 'recorded', analysis: 'invalid' },
    'stall:InvalidAnalysis',
  ],
  ['observe-only, in sync', { policy: 'observeOnly', platform: 'inSync' }, 'none'],
  ['observe-only, drifted', { policy: 'observeOnly', platform: 'drifted' }, 'stall:DriftDetected'],
  ['observe-only, nothing there', { policy: 'observeOnly' }, 'wait:NotFound'],
  [
    'deleted, owning its deployment: deleted',
    { deleting: true, platform: 'inSync', record: 'recorded' },
    'delete',
  ],
  ['deleted, owning nothing: released', { deleting: true }, 'orphan'],
  [
    'deleted while the platform deletes it',
    { deleting: true, platform: 'deleting', record: 'recorded' },
    'wait:Deleting',
  ],
  [
    // A random world once found the controller left the held stall showing while it retried the
    // deletion: both now wait on the administrator, and the stall of before is gone.
    'deleted, held Rejected, default credentials its namespace may no longer use: waits',
    { deleting: true, held: true, scope: 'notAllowed', platform: 'immutable', record: 'recorded' },
    'wait:DefaultCredentialsNotAllowed',
  ],
  [
    // Issue 51: a random world found the controller saying stall:Rejected where --prune said
    // wait:DefaultCredentialsNotAllowed, with an older refused object of the same name beside it.
    'deleted, held Rejected, default credentials not allowed, an older refused object: waits',
    {
      deleting: true,
      held: true,
      scope: 'notAllowed',
      platform: 'immutable',
      record: 'recorded',
      other: 'olderRefused',
    },
    'wait:DefaultCredentialsNotAllowed',
  ],
];

const agree = async (spec: WorldSpec) => {
  const world = await buildWorld(sim, spec);
  const plan = await planVerdict(sim, world);
  const controller = await controllerVerdict(sim, world);
  return { plan, controller };
};

describe('the controller does first what the plan prints', () => {
  it.each(TABLE)('%s', async (_, over, expected) => {
    const { plan, controller } = await agree({ ...BASE, ...over });
    expect({ controller, plan }).toEqual({ controller: expected, plan: expected });
  });

  it('a revert to a revision the platform pruned: the controller alone falls back to the PATCH', async () => {
    const world = await buildWorld(sim, {
      ...BASE,
      platform: 'inSync',
      record: 'recorded',
      remediation: 'revertGone',
    });
    await controllerVerdict(sim, world);
    const writes = sim
      .requests()
      .filter((r) => r.method !== 'GET')
      .map((r) => `${r.method} ${r.status}`);
    expect(writes).toEqual(['POST 404', 'PATCH 200']);
  });

  // A fixed seed (mulberry32): a failure names the world, and the same worlds run every time.
  // EQUIVALENCE_SEED and EQUIVALENCE_WORLDS draw other and more worlds, a search for disagreements (a
  // world one finds becomes a row of the table).
  const envInteger = (name: string, fallback: number) => {
    const text = process.env[name] ?? String(fallback);
    if (!/^-?\d+$/.test(text)) throw new Error(`${name} must be an integer, not ${text}`);
    return Number(text) | 0;
  };
  const searching = process.env.EQUIVALENCE_SEED !== undefined;
  const worlds = envInteger('EQUIVALENCE_WORLDS', 200);
  const randomTimeoutMs = 60_000 + worlds * 300;

  it('in random combinations of every dimension', { timeout: randomTimeoutMs }, async () => {
    const choices: {
      [K in Exclude<
        keyof WorldSpec,
        'remediation' | 'window' | 'analysis' | 'deletionPolicy' | 'withoutFinalizer'
      >]: readonly WorldSpec[K][];
    } = {
      platform: ['none', 'inSync', 'inSync', 'drifted', 'immutable', 'deleting'],
      record: [
        'none',
        'recorded',
        'recorded',
        'recordedGone',
        'otherTenant',
        'pendingAfter',
        'pendingBefore',
        'adopt',
      ],
      // The usual value more often, so that worlds get past the first gates.
      annotation: [
        'none',
        'none',
        'none',
        'paused',
        'badPollInterval',
        'reconcileRequested',
        'undoRequested',
      ],
      policy: ['full', 'observeOnly'],
      credentials: [
        'default',
        'default',
        'secretAllowed',
        'secretAllowed',
        'secretNotAllowed',
        'secretMissing',
      ],
      scope: ['allowed', 'allowed', 'allowed', 'notAllowed'],
      secrets: ['present', 'present', 'present', 'present', 'missing', 'huge'],
      other: ['none', 'olderSameName', 'olderObserveOnly', 'olderRefused', 'recordsSameId'],
      held: [false, false, false, true],
      deleting: [false, false, false, true],
      revision: ['deployed', 'deployed', 'inProgress', 'failed', 'failedRequested'],
    };
    // Safe rollouts drawn apart, so the worlds of the other dimensions stay the ones drawn before.
    const remediation: WorldSpec['remediation'][] = ['none', 'none', 'rollbackDue', 'rolledBack', 'revert'];
    const window: WorldSpec['window'][] = [
      'none',
      'none',
      'none',
      'denyNow',
      'denyNowOverride',
      'denyLater',
      'none',
    ];
    const analysis: WorldSpec['analysis'][] = [
      'none',
      'starts',
      'none',
      'running',
      'failed',
      'abortRequested',
      'promoteRequested',
      'invalid',
      'none',
      'none',
      'none',
    ];
    let seed = envInteger('EQUIVALENCE_SEED', 31);
    const next = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return (((t ^ (t >>> 14)) >>> 0) % n) as number;
    };
    const disagreements: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < worlds; i++) {
      const spec = Object.fromEntries(
        Object.entries(choices).map(([k, values]) => [k, values[next(values.length)]]),
      ) as unknown as WorldSpec;
      spec.remediation = remediation[i % remediation.length] as WorldSpec['remediation'];
      spec.window = window[i % window.length] as WorldSpec['window'];
      spec.analysis = analysis[i % analysis.length];
      const { plan, controller } = await agree(spec);
      seen.add(controller);
      if (plan !== controller)
        disagreements.push(`${JSON.stringify(spec)}: controller ${controller}, plan ${plan}`);
    }
    expect(disagreements).toEqual([]);
    // The default seed's worlds reach far into the chain, not only its first gates (another seed's may
    // not: a search only looks for disagreements).
    if (!searching)
      expect([...seen].sort()).toEqual(
        expect.arrayContaining(['create', 'patch', 'none', 'delete', 'orphan', 'stall:NameConflict']),
      );
  });

  // A pass per gate and row: seconds of work on a loaded machine, not a timing assertion.
  it('taking any gate out changes what the controller does in some world', { timeout: 120_000 }, async () => {
    const unseen: string[] = [];
    for (const [name] of AGENT_DEPLOYMENT_GATES) {
      const without = AGENT_DEPLOYMENT_GATES.filter(([n]) => n !== name);
      let seen = false;
      for (const [, over, expected] of TABLE) {
        const world = await buildWorld(sim, { ...BASE, ...over });
        const controller = await controllerVerdict(sim, world, { gates: without }).catch(
          (err: Error) => `threw ${err.message}`,
        );
        if (controller !== expected) {
          seen = true;
          break;
        }
      }
      if (!seen) unseen.push(name);
    }
    // The two bookkeeping gates decide no verdict (the plan assumes them made): their absence shows in
    // the Kubernetes-side writes of the controller's pass instead.
    expect(unseen).toEqual(['finalizer', 'credentialsInUse']);
    const bookkeeping = async (gates = AGENT_DEPLOYMENT_GATES) => {
      const writes: string[] = [];
      const world = await buildWorld(sim, { ...BASE, credentials: 'secretAllowed' });
      world.obj.metadata.finalizers = [];
      await controllerVerdict(sim, world, { gates, kubeWrites: writes });
      return writes;
    };
    expect(await bookkeeping()).toEqual(['addFinalizer', 'protectCredentials', 'releaseCredentials']);
    for (const name of unseen) {
      const without = AGENT_DEPLOYMENT_GATES.filter(([n]) => n !== name);
      expect(await bookkeeping(without)).not.toEqual(await bookkeeping());
    }
  });
});
