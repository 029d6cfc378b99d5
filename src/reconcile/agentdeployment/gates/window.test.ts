import { describe, expect, it } from 'vitest';
import type { DeploymentWindow } from '../../../api/deployment-windows.ts';
import { Annotation } from '../../../api/names.ts';
import { decidedBy, deploymentOf, facts, resolved } from '../facts.test-support.ts';
import type { PolicyWindows } from '../policy-windows.ts';
import { rollbackHold } from '../window-fact.ts';
import { window } from './window.ts';

// The facts' time: 2026-06-01T00:00:00Z, a Monday.
const DENY_NOW: DeploymentWindow = { kind: 'Deny', schedule: '0 0 * * *', duration: '2h' };
const DENY_LATER: DeploymentWindow = { kind: 'Deny', schedule: '0 12 * * *', duration: '2h' };
const ALLOW_LATER: DeploymentWindow = {
  kind: 'Allow',
  schedule: '0 9 * * 1-5',
  duration: '8h',
  timeZone: 'Europe/Berlin',
};

interface Row {
  windows: DeploymentWindow[];
  image?: string;
  annotations?: Record<string, string>;
  spent?: string;
  observeOnly?: boolean;
  /** The DeploymentWindowPolicies that select the object. */
  policies?: PolicyWindows[];
}

const freeze = (over: Partial<PolicyWindows> = {}): PolicyWindows => ({
  name: 'freeze',
  windows: [DENY_NOW],
  manualOverride: false,
  allowRollback: true,
  ...over,
});
const OVERRIDE = { [Annotation.OverrideWindow]: 'hotfix' };

/** The object records deployment d-1 (agent:1); `image` is what its spec asks for now. */
function windowed({ windows, image = 'agent:1', annotations = {}, spent, observeOnly, policies = [] }: Row) {
  const f = resolved(
    facts({
      annotations,
      spec: {
        deploymentWindows: windows,
        sourceRevisionConfig: { imageUri: `registry.example.com/${image}` },
        ...(observeOnly ? { managementPolicies: ['Observe'] } : {}),
      },
      status: {
        deploymentId: 'd-1',
        ...(spent ? { deploymentWindow: { open: false, overrideSpent: spent } } : {}),
      },
    }),
  );
  f.policies = { readable: true, selecting: policies };
  if (!f.desired?.ok) throw new Error('no desired state');
  f.object.status.appliedConfigDigest = f.desired.digests.unechoed;
  f.recorded = deploymentOf(f, { source_revision_config: { image_uri: 'registry.example.com/agent:1' } });
  return f;
}

describe('gate window', () => {
  it.each<[string, Row, object | undefined]>([
    ['no windows: the next gate decides', { windows: [], image: 'agent:2' }, undefined],
    [
      'a Deny window open, a change: held until it closes',
      { windows: [DENY_NOW], image: 'agent:2' },
      {
        kind: 'wait',
        reason: 'WindowClosed',
        windowClosed: true,
        retryAfterMs: 3_600_000,
      },
    ],
    ['a Deny window open, nothing to change: the revision is followed', { windows: [DENY_NOW] }, undefined],
    ['a Deny window later: the change goes out', { windows: [DENY_LATER], image: 'agent:2' }, undefined],
    [
      'outside the only Allow window: held',
      { windows: [ALLOW_LATER], image: 'agent:2' },
      { kind: 'wait', reason: 'WindowClosed' },
    ],
    [
      'Deny beats Allow',
      {
        windows: [{ ...DENY_NOW }, { kind: 'Allow', schedule: '0 0 * * *', duration: '1h' }],
        image: 'agent:2',
      },
      { kind: 'wait', reason: 'WindowClosed' },
    ],
    [
      'the override lets one change through',
      { windows: [DENY_NOW], image: 'agent:2', annotations: { [Annotation.OverrideWindow]: 'hotfix' } },
      undefined,
    ],
    [
      'an override spent already: held',
      {
        windows: [DENY_NOW],
        image: 'agent:2',
        annotations: { [Annotation.OverrideWindow]: 'hotfix' },
        spent: 'hotfix',
      },
      { kind: 'wait', reason: 'WindowClosed' },
    ],
    [
      'observe-only sends nothing anyway',
      { windows: [DENY_NOW], image: 'agent:2', observeOnly: true },
      undefined,
    ],
    [
      'a time zone that does not exist: InvalidWindow, naming the field',
      { windows: [{ ...DENY_NOW, timeZone: 'Mars/Olympus' }], image: 'agent:2' },
      {
        kind: 'stall',
        reason: 'InvalidWindow',
        message: expect.stringContaining('spec.deploymentWindows[0].timeZone'),
      },
    ],
    [
      'a policy selecting it, a Deny window open: held, naming the policy',
      { windows: [], image: 'agent:2', policies: [freeze()] },
      {
        kind: 'wait',
        reason: 'WindowClosed',
        message: expect.stringContaining('DeploymentWindowPolicy/freeze windows[0] (Deny'),
      },
    ],
    [
      "a policy's Allow window joins the object's: outside both, held",
      {
        windows: [ALLOW_LATER],
        image: 'agent:2',
        policies: [freeze({ windows: [{ kind: 'Allow', schedule: '0 20 * * *', duration: '1h' }] })],
      },
      { kind: 'wait', reason: 'WindowClosed' },
    ],
    [
      "inside the policy's Allow window, the object's Allow closed: one Allow open anywhere, the change goes",
      {
        windows: [ALLOW_LATER],
        image: 'agent:2',
        policies: [freeze({ windows: [{ kind: 'Allow', schedule: '0 0 * * *', duration: '1h' }] })],
      },
      undefined,
    ],
    [
      "the override against a policy's window without manualOverride: refused, said",
      { windows: [], image: 'agent:2', annotations: OVERRIDE, policies: [freeze()] },
      {
        kind: 'wait',
        reason: 'WindowClosed',
        message: expect.stringContaining(
          'the override-window annotation is refused: DeploymentWindowPolicy/freeze has manualOverride false',
        ),
      },
    ],
    [
      'the override against a policy with manualOverride: the change goes',
      {
        windows: [],
        image: 'agent:2',
        annotations: OVERRIDE,
        policies: [freeze({ manualOverride: true })],
      },
      undefined,
    ],
    [
      "the override lifts the object's window but not a policy's without manualOverride",
      {
        windows: [DENY_NOW],
        image: 'agent:2',
        annotations: OVERRIDE,
        policies: [freeze({ manualOverride: true }), freeze({ name: 'launch' })],
      },
      {
        kind: 'wait',
        message: expect.stringContaining('DeploymentWindowPolicy/launch has manualOverride false'),
      },
    ],
    [
      "a policy's window that cannot be read: InvalidWindow, naming the policy",
      {
        windows: [],
        image: 'agent:2',
        policies: [freeze({ windows: [{ ...DENY_NOW, timeZone: 'Mars/Olympus' }] })],
      },
      {
        kind: 'stall',
        reason: 'InvalidWindow',
        message: expect.stringContaining('DeploymentWindowPolicy/freeze windows[0].timeZone'),
      },
    ],
  ])('%s', (_name, row, expected) => {
    const verdict = decidedBy(window, windowed(row));
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });

  it.each<[string, string, object | undefined]>([
    [
      'a change',
      'agent:2',
      {
        kind: 'wait',
        reason: 'WindowClosed',
        message: 'the change waits: the DeploymentWindowPolicies are not listed yet',
      },
    ],
    ['nothing to change: the revision is followed', 'agent:1', undefined],
  ])(
    'the controller has not listed the policies (a freeze may be in force), %s',
    (_name, image, expected) => {
      const f = windowed({ windows: [], image });
      f.policies = { readable: false, why: 'the DeploymentWindowPolicies are not listed yet', hold: true };
      const verdict = decidedBy(window, f);
      if (expected === undefined) expect(verdict).toBeUndefined();
      else expect(verdict).toMatchObject(expected);
    },
  );

  it('the plan could not read the policies: planned without them (its note says so)', () => {
    const f = windowed({ windows: [], image: 'agent:2' });
    f.policies = { readable: false, why: 'DeploymentWindowPolicies not read (no cluster)' };
    expect(decidedBy(window, f)).toBeUndefined();
  });

  it('the message names the window and when it opens, in its zone and in UTC', () => {
    const verdict = decidedBy(window, windowed({ windows: [ALLOW_LATER], image: 'agent:2' }));
    expect(verdict).toMatchObject({
      message:
        'the change waits: spec.deploymentWindows[0] (Allow "0 9 * * 1-5" for 8h0m0s, Europe/Berlin) holds changes; it opens 2026-06-01T09:00:00+02:00 (Europe/Berlin), 2026-06-01T07:00:00Z',
    });
  });
});

describe('rollbackHold: a rollback through a closed window', () => {
  it.each<[string, Row & { allowRollback?: boolean }, object | undefined]>([
    ["the object's Deny window, by default: goes through", { windows: [DENY_NOW] }, undefined],
    [
      'spec.remediation.allowRollback false: held',
      { windows: [DENY_NOW], allowRollback: false },
      {
        gate: 'rollback',
        kind: 'wait',
        reason: 'WindowClosed',
        message: expect.stringMatching(/^the rollback waits/),
      },
    ],
    ["a policy's Deny window, by default: goes through", { windows: [], policies: [freeze()] }, undefined],
    [
      'a policy with allowRollback false: held, naming it',
      { windows: [], policies: [freeze({ allowRollback: false })] },
      { kind: 'wait', message: expect.stringContaining('DeploymentWindowPolicy/freeze windows[0]') },
    ],
    [
      'allowRollback false on the object, its windows open, a policy holding that allows rollbacks: goes through',
      { windows: [DENY_LATER], allowRollback: false, policies: [freeze()] },
      undefined,
    ],
    [
      'allowRollback false, no window closed: goes through',
      { windows: [DENY_LATER], allowRollback: false },
      undefined,
    ],
  ])('%s', (_name, { allowRollback, ...row }, expected) => {
    const f = windowed(row);
    if (allowRollback !== undefined) f.object.spec.remediation = { strategy: 'Rollback', allowRollback };
    const verdict = decidedBy((facts) => rollbackHold(facts, 'rollback'), f);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
