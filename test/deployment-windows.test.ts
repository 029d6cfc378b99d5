/**
 * Deployment windows (issue 53) against the real API server and the simulator: a Deny window open now
 * holds an image change (nothing sent for several poll intervals; Reconciling WindowClosed, the status and
 * the plan saying so) and the change goes out once it closes; an Allow window later holds a create; the
 * override annotation lets one change through and is recorded; a rollback (an undo) goes through a Deny
 * window; a window the CRD cannot refuse but the controller cannot read is InvalidWindow; one the CRD
 * can tell is refused at admission.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { Annotation } from '../src/api/names.ts';
import type { ControlPlaneClient } from '../src/controlplane/client.ts';
import { planObjects } from '../src/plan/plan.ts';
import { externalImage } from './support/agd-objects.ts';
import {
  createAgd,
  deleteAgd,
  eventually,
  getAgd,
  type Harness,
  mergePatchAgd,
  sleep,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { planWorld } from './support/plan-world.ts';

const DIGEST_KEY = 'windows-test-digest-key';
let h: Harness;
const clients: ControlPlaneClient[] = [];

beforeAll(async () => {
  h = await startHarness('windows', { env: { SECRETS_DIGEST_KEY: DIGEST_KEY } });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await h?.stop();
});

const condition = (obj: AgentDeployment, type: string) =>
  obj.status?.conditions?.find((c) => c.type === type);
const writesTo = (name: string) => {
  const id = h.sim.deployments().find((d) => d.name === name)?.id ?? '?';
  return h.sim
    .requests()
    .filter((r) => r.method !== 'GET' && r.status > 0 && r.path.includes(id))
    .map((r) => `${r.method} ${r.route}`);
};

/** A Deny window open from the current UTC minute for one minute (past 40 s into it: the next minute's). */
async function denyThisMinute() {
  if (new Date().getUTCSeconds() > 40) await sleep(61_000 - new Date().getUTCSeconds() * 1000);
  const now = new Date();
  return { kind: 'Deny', schedule: `${now.getUTCMinutes()} ${now.getUTCHours()} * * *`, duration: '1m' };
}

describe('deployment windows', () => {
  it('a Deny window open holds an image change, says so, and lets it out when it closes', {
    timeout: 180_000,
  }, async () => {
    await createAgd(h, externalImage('frozen'));
    await waitReady(h, 'frozen');
    const before = writesTo('frozen').length;
    const deny = await denyThisMinute();
    await mergePatchAgd(h, 'frozen', {
      spec: { deploymentWindows: [deny], sourceRevisionConfig: { imageUri: 'registry.example.com/agent:2' } },
    });
    const held = await eventually(async () => {
      const obj = await getAgd(h, 'frozen');
      return condition(obj, 'Reconciling')?.reason === 'WindowClosed' ? obj : undefined;
    }, 'Reconciling WindowClosed');
    expect(condition(held, 'Reconciling')?.message).toMatch(
      /^the change waits: spec\.deploymentWindows\[0\] \(Deny "\d+ \d+ \* \* \*" for 1m0s, UTC\) holds changes; it opens \S+ \(UTC\), \S+Z$/,
    );
    expect(held.status?.deploymentWindow).toMatchObject({
      open: false,
      heldGeneration: held.metadata.generation,
    });
    expect(held.status?.deploymentWindow?.nextOpen).toMatch(/:00\.000Z$/);
    // The plan says the same: a wait with the window's reason.
    const input = {
      apiVersion: held.apiVersion,
      kind: 'AgentDeployment' as const,
      metadata: { name: 'frozen', namespace: h.ns },
      spec: held.spec,
    };
    const [planned] = await planObjects([input], h.ns, planWorld(h, DIGEST_KEY, clients));
    expect(planned).toMatchObject({ action: 'wait', reason: 'WindowClosed' });
    // Several poll intervals (1 s here): nothing sent.
    await sleep(3_000);
    expect(writesTo('frozen').slice(before)).toEqual([]);
    // The window closes at the minute: the PATCH goes out, once.
    const done = await eventually(
      async () => {
        const obj = await getAgd(h, 'frozen');
        return obj.status?.deploymentWindow?.open &&
          condition(obj, 'Ready')?.status === 'True' &&
          obj.status.history?.[0]?.image === 'registry.example.com/agent:2'
          ? obj
          : undefined;
      },
      'the change applied after the window',
      90_000,
    );
    expect(done.status?.deploymentWindow).toEqual({ open: true });
    expect(
      writesTo('frozen')
        .slice(before)
        .filter((w) => w.startsWith('PATCH')),
    ).toHaveLength(1);
  });

  it('an Allow window later holds a create: no deployment until it opens', async () => {
    const hour = (new Date().getUTCHours() + 12) % 24;
    await createAgd(
      h,
      externalImage('after-hours', {
        deploymentWindows: [
          { kind: 'Allow', schedule: `0 ${hour} * * *`, duration: '1h', timeZone: 'Europe/Berlin' },
        ],
      }),
    );
    const obj = await eventually(async () => {
      const o = await getAgd(h, 'after-hours');
      return condition(o, 'Reconciling')?.reason === 'WindowClosed' ? o : undefined;
    }, 'the create held');
    expect(condition(obj, 'Reconciling')?.message).toMatch(/^the create waits: .*\(Europe\/Berlin\)/);
    expect(h.sim.deployments().some((d) => d.name === 'after-hours')).toBe(false);
  });

  it('the override lets one change through, recorded in the history and spent', async () => {
    await createAgd(h, externalImage('hotfixed'));
    await waitReady(h, 'hotfixed');
    const never = { kind: 'Deny', schedule: '0 0 * * *', duration: '8784h' };
    await mergePatchAgd(h, 'hotfixed', {
      metadata: { annotations: { [Annotation.OverrideWindow]: 'INC-42: \u001b[31mfix\u001b[0m' } },
      spec: {
        deploymentWindows: [never],
        sourceRevisionConfig: { imageUri: 'registry.example.com/agent:2' },
      },
    });
    const through = await eventually(async () => {
      const o = await getAgd(h, 'hotfixed');
      return o.status?.history?.[0]?.windowOverride ? o : undefined;
    }, 'the change through with the override');
    // Cleaned: the escape sequence of a namespace user never reaches status.
    expect(through.status?.history?.[0]?.windowOverride).toBe('INC-42: [31mfix [0m');
    expect(through.status?.deploymentWindow?.overrideSpent).toBe('INC-42: [31mfix [0m');
    // The next change waits: the override is spent.
    await mergePatchAgd(h, 'hotfixed', {
      spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/agent:3' } },
    });
    await eventually(
      async () => condition(await getAgd(h, 'hotfixed'), 'Reconciling')?.reason === 'WindowClosed',
      'held again',
    );
  });

  it('a rollback goes through a Deny window: an undo redeploys the revision before, nothing else is sent', async () => {
    await createAgd(h, externalImage('restored'));
    await waitReady(h, 'restored');
    await mergePatchAgd(h, 'restored', {
      spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/agent:2' } },
    });
    await eventually(async () => {
      const o = await getAgd(h, 'restored');
      return o.status?.history?.length === 2 && o.status.history[0]?.outcome === 'Deployed';
    }, 'the second revision deployed');
    const before = writesTo('restored').length;
    // A freeze all year; then a rollback by hand (what `kubectl agd undo` writes).
    const frozen = { kind: 'Deny', schedule: '0 0 1 1 *', duration: '8784h' };
    await mergePatchAgd(h, 'restored', { spec: { deploymentWindows: [frozen] } });
    await mergePatchAgd(h, 'restored', {
      metadata: { annotations: { [Annotation.UndoRequestedAt]: new Date().toISOString() } },
    });
    const restored = await eventually(async () => {
      const o = await getAgd(h, 'restored');
      return condition(o, 'Stalled')?.reason === 'RolledBack' ? o : undefined;
    }, 'RolledBack through the Deny window');
    expect(restored.status?.history?.[0]).toMatchObject({ trigger: 'Rollback' });
    expect(restored.status?.deploymentWindow?.open).toBe(false);
    expect(writesTo('restored').slice(before)).toEqual([
      'POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy',
    ]);
  });

  it('a closed window holds the DELETE of a deleted object: the finalizer stays until it opens', async () => {
    await createAgd(h, externalImage('kept'));
    await waitReady(h, 'kept');
    const never = { kind: 'Deny', schedule: '0 0 * * *', duration: '8784h' };
    await mergePatchAgd(h, 'kept', { spec: { deploymentWindows: [never] } });
    await deleteAgd(h, 'kept');
    const held = await eventually(async () => {
      const o = await getAgd(h, 'kept');
      return condition(o, 'Reconciling')?.reason === 'WindowClosed' ? o : undefined;
    }, 'the DELETE held');
    expect(condition(held, 'Reconciling')?.message).toMatch(
      /^the deletion waits: spec\.deploymentWindows\[0\]/,
    );
    expect(writesTo('kept').filter((w) => w.startsWith('DELETE'))).toEqual([]);
    // The window lifted: the DELETE goes, and the object with it.
    await mergePatchAgd(h, 'kept', { spec: { deploymentWindows: null } });
    await eventually(
      async () => !h.sim.deployments().some((d) => d.name === 'kept'),
      'the deployment deleted',
    );
  });

  it('a cron the CRD lets in but nothing can read: Stalled InvalidWindow, naming the field; a bad duration is refused at admission', async () => {
    await createAgd(
      h,
      externalImage('unreadable', {
        deploymentWindows: [{ kind: 'Deny', schedule: '61 * * * *', duration: '1h' }],
      }),
    );
    const obj = await eventually(async () => {
      const o = await getAgd(h, 'unreadable');
      return condition(o, 'Stalled')?.reason === 'InvalidWindow' ? o : undefined;
    }, 'InvalidWindow');
    expect(condition(obj, 'Stalled')?.message).toContain('spec.deploymentWindows[0].schedule');
    expect(h.sim.deployments().some((d) => d.name === 'unreadable')).toBe(false);
    await expect(
      createAgd(
        h,
        externalImage('refused', {
          deploymentWindows: [{ kind: 'Deny', schedule: '0 0 * * *', duration: 'soon' }],
        }),
      ),
    ).rejects.toThrow(/spec\.deploymentWindows\[\]\.duration must be a duration/);
  });
});
