/**
 * DeploymentWindowPolicy (issue 53) against the real API server and the simulator: a policy selecting the
 * namespace by its labels holds an image change (nothing sent for several poll intervals; WindowClosed
 * naming the policy; the plan agreeing; the policy's status listing the object); the namespace user's
 * override annotation is refused while the policy's manualOverride is false, and lets the change through
 * once it is true; a namespace user cannot edit the policy; its window holds the DELETE of a deleted
 * object; a policy with allowRollback false holds an undo by hand; a policy that does not select the
 * namespace holds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import type { DeploymentWindowPolicy } from '../src/api/deployment-window-policy.ts';
import { Annotation } from '../src/api/names.ts';
import type { ControlPlaneClient } from '../src/controlplane/client.ts';
import { KubeAccess } from '../src/kube/access.ts';
import { loadKubeconfigFiles } from '../src/kube/kubeconfig.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { targetOf } from '../src/kube/target.ts';
import { planObjects } from '../src/plan/plan.ts';
import { POLICIES_PATH } from '../src/reconcile/agentdeployment/policy-windows.ts';
import { externalImage } from './support/agd-objects.ts';
import {
  condition,
  createAgd,
  deleteAgd,
  eventually,
  getAgd,
  type Harness,
  listEvents,
  mergePatchAgd,
  sleep,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { kubectl, testKubeconfigPath } from './support/kube.ts';
import { planWorld } from './support/plan-world.ts';

const DIGEST_KEY = 'window-policies-test-digest-key';
const LABEL = 'window-policies-test';
const NAMESPACE_USER = 'window-policies-user';
/** A Deny window open now and for a year: it opened at the last midnight (UTC) and lasts 366 days. */
const ALWAYS = { kind: 'Deny', schedule: '0 0 * * *', duration: '8784h' };
let h: Harness;
const clients: ControlPlaneClient[] = [];
const policies: string[] = [];

beforeAll(async () => {
  h = await startHarness('dwp', { env: { SECRETS_DIGEST_KEY: DIGEST_KEY } });
  const labelled = await kubectl(['label', 'namespace', h.ns, `${LABEL}=${h.ns}`]);
  expect(labelled.code, labelled.stderr).toBe(0);
});
afterAll(async () => {
  await Promise.all(
    policies.map((name) =>
      kubeRequest(h.access, { method: 'DELETE', path: `${POLICIES_PATH}/${name}` }).catch(() => undefined),
    ),
  );
  await Promise.all(clients.map((c) => c.close()));
  await h?.stop();
});

async function createPolicy(name: string, spec: Record<string, unknown>): Promise<void> {
  policies.push(name);
  await kubeRequest(h.access, {
    method: 'POST',
    path: POLICIES_PATH,
    body: {
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'DeploymentWindowPolicy',
      metadata: { name },
      spec,
    },
  });
}
const getPolicy = async (name: string) =>
  (await kubeRequest(h.access, {
    method: 'GET',
    path: `${POLICIES_PATH}/${name}`,
  })) as DeploymentWindowPolicy;

const writesTo = (name: string) => {
  const id = h.sim.deployments().find((d) => d.name === name)?.id ?? '?';
  return h.sim
    .requests()
    .filter((r) => r.method !== 'GET' && r.status > 0 && r.path.includes(id))
    .map((r) => `${r.method} ${r.route}`);
};
const reconciling = async (name: string) => condition(await getAgd(h, name), 'Reconciling');
const IMAGE_2 = { spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/agent:2' } } };
const applied = (obj: AgentDeployment) => obj.status?.history?.[0]?.image === 'registry.example.com/agent:2';

describe('DeploymentWindowPolicy', () => {
  it('a policy that does not select the namespace holds nothing', async () => {
    await createPolicy(`elsewhere-${h.ns}`, {
      namespaceSelector: { matchLabels: { [LABEL]: 'another-namespace' } },
      windows: [ALWAYS],
    });
    await createAgd(h, externalImage('free'));
    await waitReady(h, 'free');
    await mergePatchAgd(h, 'free', IMAGE_2);
    const done = await eventually(async () => {
      const obj = await getAgd(h, 'free');
      return applied(obj) && condition(obj, 'Ready')?.status === 'True' ? obj : undefined;
    }, 'the change applied');
    expect(done.status?.deploymentWindow).toBeUndefined();
  });

  it("holds an image change, naming the policy; the override is refused until the policy's manualOverride", {
    timeout: 120_000,
  }, async () => {
    await createAgd(h, externalImage('held'));
    await waitReady(h, 'held');
    const freeze = `freeze-${h.ns}`;
    await createPolicy(freeze, {
      namespaceSelector: { matchLabels: { [LABEL]: h.ns } },
      windows: [ALWAYS],
    });
    const before = writesTo('held').length;
    await mergePatchAgd(h, 'held', IMAGE_2);
    const held = await eventually(async () => {
      const obj = await getAgd(h, 'held');
      return condition(obj, 'Reconciling')?.reason === 'WindowClosed' ? obj : undefined;
    }, 'Reconciling WindowClosed');
    const holding = `DeploymentWindowPolicy/${freeze} windows[0]`;
    expect(condition(held, 'Reconciling')?.message).toContain(`the change waits: ${holding} (Deny`);
    expect(held.status?.deploymentWindow).toMatchObject({
      open: false,
      holding: expect.stringContaining(holding),
    });
    // The plan reads the policies too and agrees.
    const input = {
      apiVersion: held.apiVersion,
      kind: 'AgentDeployment' as const,
      metadata: { name: 'held', namespace: h.ns },
      spec: held.spec,
    };
    const [planned] = await planObjects([input], h.ns, planWorld(h, DIGEST_KEY, clients));
    expect(planned).toMatchObject({ action: 'wait', reason: 'WindowClosed' });
    expect(planned?.message).toContain(holding);
    // The policy's status lists what it holds.
    const status = await eventually(async () => {
      const p = await getPolicy(freeze);
      return p.status?.heldObjects === 1 ? p.status : undefined;
    }, "the policy's status");
    expect(status).toMatchObject({
      held: [`${h.ns}/held`],
      observedGeneration: 1,
      conditions: [expect.objectContaining({ type: 'Ready', status: 'True' })],
    });

    // The namespace user may ask for an override: refused, said in the condition and in an event.
    await mergePatchAgd(h, 'held', { metadata: { annotations: { [Annotation.OverrideWindow]: 'INC-7' } } });
    const refusal = `the override-window annotation is refused: DeploymentWindowPolicy/${freeze} has manualOverride false`;
    await eventually(async () => (await reconciling('held'))?.message.includes(refusal), 'the refusal said');
    await eventually(
      async () => (await listEvents(h, 'held')).some((e) => e.reason === 'WindowOverrideRefused'),
      'the refusal event',
    );
    // Several poll intervals (1 s here): nothing sent.
    await sleep(3_000);
    expect(writesTo('held').slice(before)).toEqual([]);

    // A namespace user cannot lift the policy: its namespace's edit role grants nothing of it.
    const bound = await kubectl(
      ['create', 'rolebinding', 'dwp-edit', '--clusterrole=edit', `--user=${NAMESPACE_USER}`],
      { namespace: h.ns },
    );
    expect(bound.code, bound.stderr).toBe(0);
    const user = new KubeAccess({
      ...targetOf(loadKubeconfigFiles([testKubeconfigPath()])),
      impersonate: { user: NAMESPACE_USER, groups: ['system:authenticated'], extra: {} },
    });
    await expect(
      kubeRequest(user, {
        method: 'PATCH',
        path: `${POLICIES_PATH}/${freeze}`,
        body: { spec: { manualOverride: true } },
        contentType: 'application/merge-patch+json',
      }),
    ).rejects.toMatchObject({ status: 403 });

    // The platform team allows overrides: the change goes through, once, the override recorded.
    await kubeRequest(h.access, {
      method: 'PATCH',
      path: `${POLICIES_PATH}/${freeze}`,
      body: { spec: { manualOverride: true } },
      contentType: 'application/merge-patch+json',
    });
    const through = await eventually(async () => {
      const obj = await getAgd(h, 'held');
      return applied(obj) ? obj : undefined;
    }, 'the change through with the override');
    expect(through.status?.history?.[0]?.windowOverride).toBe('INC-7');
    expect(
      writesTo('held')
        .slice(before)
        .filter((w) => w.startsWith('PATCH')),
    ).toHaveLength(1);
    // No longer held: the policy's status says so.
    await eventually(async () => (await getPolicy(freeze)).status?.heldObjects === 0, 'the hold released');

    // The policy's window holds the DELETE too (the override is for changes): the finalizer stays.
    await deleteAgd(h, 'held');
    const deleting = await eventually(async () => {
      const obj = await getAgd(h, 'held');
      return condition(obj, 'Reconciling')?.reason === 'WindowClosed' ? obj : undefined;
    }, 'the DELETE held');
    expect(condition(deleting, 'Reconciling')?.message).toContain(`the deletion waits: ${holding}`);
    expect(writesTo('held').filter((w) => w.startsWith('DELETE'))).toEqual([]);
    // The policy's status counts the deletion it holds.
    await eventually(
      async () => (await getPolicy(freeze)).status?.held?.includes(`${h.ns}/held`),
      'the deletion listed as held',
    );
    // The freeze lifted: the DELETE goes.
    await kubeRequest(h.access, { method: 'DELETE', path: `${POLICIES_PATH}/${freeze}` });
    await eventually(
      async () => !h.sim.deployments().some((d) => d.name === 'held'),
      'the deployment deleted',
    );
  });

  it('a policy with allowRollback false holds kubectl agd undo; true lets it through, one redeploy', {
    timeout: 120_000,
  }, async () => {
    await createAgd(h, externalImage('undone'));
    await waitReady(h, 'undone');
    await mergePatchAgd(h, 'undone', IMAGE_2);
    await eventually(async () => {
      const obj = await getAgd(h, 'undone');
      return obj.status?.history?.length === 2 && obj.status.history[0]?.outcome === 'Deployed';
    }, 'the second revision deployed');
    const noRollback = `no-rollback-${h.ns}`;
    await createPolicy(noRollback, {
      namespaceSelector: { matchLabels: { [LABEL]: h.ns } },
      windows: [ALWAYS],
      allowRollback: false,
    });
    const before = writesTo('undone').length;
    await mergePatchAgd(h, 'undone', {
      metadata: { annotations: { [Annotation.UndoRequestedAt]: new Date().toISOString() } },
    });
    await eventually(
      async () =>
        (await reconciling('undone'))?.message.startsWith(
          `the rollback waits: DeploymentWindowPolicy/${noRollback} windows[0]`,
        ),
      'the undo held',
    );
    await sleep(3_000);
    expect(writesTo('undone').slice(before)).toEqual([]);
    // Rollbacks allowed through the freeze: the undo held is made, once.
    await kubeRequest(h.access, {
      method: 'PATCH',
      path: `${POLICIES_PATH}/${noRollback}`,
      body: { spec: { allowRollback: true } },
      contentType: 'application/merge-patch+json',
    });
    await eventually(
      async () => condition(await getAgd(h, 'undone'), 'Stalled')?.reason === 'RolledBack',
      'RolledBack',
    );
    expect(writesTo('undone').slice(before)).toEqual([
      'POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy',
    ]);
  });
});
