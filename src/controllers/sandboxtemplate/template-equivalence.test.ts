/**
 * One SandboxTemplate program, two readers: for many worlds (a table, then every combination of the
 * dimensions), the controller's pass (Kubernetes in memory, the control plane the simulator over HTTP)
 * and `kubectl agd plan` reach the same answer: nothing to report, or the same wait or stall with the
 * same reason. Taking any gate out of the chain changes the controller's answer in some world.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATE_GATES } from '../../reconcile/sandboxtemplate/chain.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import {
  buildTemplateWorld,
  TEMPLATE_BASE,
  type TemplateWorldSpec,
  templateControllerVerdict,
  templatePlanVerdict,
} from './template-worlds.test-support.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

const TABLE: [string, Partial<TemplateWorldSpec>, string][] = [
  ['found, as the spec says', {}, 'none'],
  ['found, another image: drift', { templates: 'drifted' }, 'stall:DriftDetected'],
  ['none of the name: waits', { templates: 'none' }, 'wait:NotFound'],
  ['only a near name: waits', { templates: 'similar' }, 'wait:NotFound'],
  ['two of the name: stalled', { templates: 'two' }, 'stall:Ambiguous'],
  ['paused: nothing', { annotation: 'paused', templates: 'drifted' }, 'none'],
  ['a bad poll interval: stalled', { annotation: 'badPollInterval' }, 'stall:InvalidAnnotation'],
  [
    'a reconcile requested: listed again',
    { annotation: 'reconcileRequested', templates: 'drifted' },
    'stall:DriftDetected',
  ],
  ['default credentials not allowed', { scope: 'notAllowed' }, 'stall:DefaultCredentialsNotAllowed'],
  [
    'its own credentials, in a refused namespace',
    { scope: 'notAllowed', credentials: 'secretAllowed' },
    'none',
  ],
  [
    'its own credentials, drifted',
    { credentials: 'secretAllowed', templates: 'drifted' },
    'stall:DriftDetected',
  ],
  ['a control plane not allowed', { credentials: 'secretNotAllowed' }, 'stall:ControlPlaneNotAllowed'],
  ['its credentials missing: waits', { credentials: 'secretMissing' }, 'wait:WaitingForCredentials'],
];

const agree = async (spec: TemplateWorldSpec) => {
  const world = buildTemplateWorld(sim, spec);
  const plan = await templatePlanVerdict(sim, world);
  const controller = await templateControllerVerdict(sim, world);
  return { plan, controller };
};

describe('the SandboxTemplate controller reports what the plan prints', () => {
  it.each(TABLE)('%s', async (_, over, expected) => {
    const { plan, controller } = await agree({ ...TEMPLATE_BASE, ...over });
    expect({ controller, plan }).toEqual({ controller: expected, plan: expected });
  });

  // Few enough dimensions to take every combination rather than a random draw of them.
  it('in every combination of the dimensions', { timeout: 120_000 }, async () => {
    const choices: { [K in keyof TemplateWorldSpec]: readonly TemplateWorldSpec[K][] } = {
      annotation: ['none', 'paused', 'badPollInterval', 'reconcileRequested'],
      credentials: ['default', 'secretAllowed', 'secretNotAllowed', 'secretMissing'],
      scope: ['allowed', 'notAllowed'],
      templates: ['none', 'similar', 'inSync', 'drifted', 'two'],
    };
    let worlds: Partial<TemplateWorldSpec>[] = [{}];
    for (const [key, values] of Object.entries(choices))
      worlds = worlds.flatMap((w) => values.map((v) => ({ ...w, [key]: v })));
    const disagreements: string[] = [];
    for (const spec of worlds as TemplateWorldSpec[]) {
      const { plan, controller } = await agree(spec);
      if (plan !== controller)
        disagreements.push(`${JSON.stringify(spec)}: controller ${controller}, plan ${plan}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('taking any gate out changes what the controller does in some world', async () => {
    const unseen: string[] = [];
    for (const [gate] of TEMPLATE_GATES) {
      const without = TEMPLATE_GATES.filter(([n]) => n !== gate);
      let seen = false;
      for (const [, over, expected] of TABLE) {
        const world = buildTemplateWorld(sim, { ...TEMPLATE_BASE, ...over });
        if ((await templateControllerVerdict(sim, world, without)) !== expected) {
          seen = true;
          break;
        }
      }
      if (!seen) unseen.push(gate);
    }
    expect(unseen).toEqual([]);
  });
});
