/**
 * The observe-only policy (spec.managementPolicies ["Observe"]) against the real API server and the
 * simulator: drift is reported field by field and nothing is written to the control plane; deleting the
 * object leaves the deployment (whatever deletionPolicy says); switching to full management with no
 * drift sends nothing; the plan shows such objects as observe-only.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { Annotation } from '../src/api/names.ts';
import { ControlPlaneClient } from '../src/controlplane/client.ts';
import type { PlanKind, PlanWorld } from '../src/plan/model.ts';
import { planObjects } from '../src/plan/plan.ts';
import { DEFAULT_API_KEY, type RequestRecord } from '../src/simulator/index.ts';
import {
  condition,
  createAgd,
  deleteAgd,
  eventually,
  getAgd,
  type Harness,
  mergePatchAgd,
  putSecret,
  sleep,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { planWorld } from './support/plan-world.ts';

const LISTENER = '3b6f0c1e-8a4d-4e6f-9b7a-1c2d3e4f5a6b';
let h: Harness;
let ci: ControlPlaneClient;
const clients: ControlPlaneClient[] = [];

beforeAll(async () => {
  h = await startHarness('observe-only', { env: { SECRETS_DIGEST_KEY: 'observe-only-digest-key' } });
  ci = new ControlPlaneClient({ credentials: { baseUrl: h.sim.url, apiKey: DEFAULT_API_KEY } });
});
afterAll(async () => {
  await Promise.all([ci, ...clients].map((c) => c?.close()));
  await h?.stop();
});

const writes = (since: number): RequestRecord[] =>
  h.sim
    .requests()
    .slice(since)
    .filter((r) => r.method !== 'GET' && r.route.startsWith('/v2/deployments'));

/** A deployment made by a CI script, DEPLOYED. */
async function deployedByCi(name: string, image: string): Promise<string> {
  const created = await ci.createDeployment({
    name,
    source: 'external_image',
    source_config: { listener_id: LISTENER, resource_spec: { cpu: 1, memory_mb: 512 } },
    source_revision_config: { image_uri: image },
    secrets: [{ name: 'API_TOKEN', value: 'ci-token' }],
  });
  await eventually(async () => (await ci.getDeployment(created.id)).status === 'READY', `${name} READY`);
  return created.id;
}

const spec = (image: string, secret: string, extra: Record<string, unknown> = {}) => ({
  source: 'external_image',
  managementPolicies: ['Observe'],
  sourceConfig: { listenerId: LISTENER, resourceSpec: { cpu: 1, memoryMb: 512 } },
  sourceRevisionConfig: { imageUri: image },
  secrets: [{ name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: secret, key: 'token' } } }],
  ...extra,
});

const world = (): PlanWorld => planWorld(h, 'observe-only-digest-key', clients);

async function planOf(obj: AgentDeployment) {
  const input = { ...obj, metadata: { ...obj.metadata, managedFields: undefined } };
  const [entry] = await planObjects([input as typeof input & { kind: PlanKind }], h.ns, world());
  return entry;
}

it('drift is reported, nothing is written; in sync it is Ready; full management then sends nothing', {
  timeout: 120_000,
}, async () => {
  const id = await deployedByCi('observed', 'registry.example.com/agent:1');
  await putSecret(h, 'observed-token', { token: 'not-what-ci-sent' });
  const since = h.sim.requests().length;

  await createAgd(h, {
    metadata: { name: 'observed', annotations: { [Annotation.AdoptDeploymentId]: id } },
    spec: spec('registry.example.com/agent:2', 'observed-token'),
  });
  const drifted = await eventually(async () => {
    const o = await getAgd(h, 'observed');
    return condition(o, 'Drifted')?.status === 'True' ? o : undefined;
  }, 'Drifted');
  expect(drifted.status?.drift).toEqual(['spec.sourceRevisionConfig.imageUri']);
  expect(condition(drifted, 'Stalled')?.reason).toBe('DriftDetected');
  expect(condition(drifted, 'Drifted')?.message).toContain('spec.sourceRevisionConfig.imageUri');
  expect(drifted.status).toMatchObject({
    deploymentId: id,
    deploymentStatus: 'READY',
    revisionStatus: 'DEPLOYED',
  });
  expect(drifted.status?.latestRevisionId).toBeDefined();
  expect(drifted.metadata.finalizers ?? []).toEqual([]);
  const plan = await planOf(drifted);
  expect(plan).toMatchObject({ action: 'stall', reason: 'DriftDetected', observeOnly: true });

  // The spec now says what the platform has (the masked secret value is taken as current).
  await mergePatchAgd(h, 'observed', {
    spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' } },
  });
  const inSync = await waitReady(h, 'observed');
  expect(condition(inSync, 'Drifted')).toMatchObject({ status: 'False', reason: 'InSync' });
  expect(inSync.status?.drift).toEqual([]);
  expect((await planOf(inSync))?.action).toBe('none');
  await sleep(2_500);
  expect(writes(since)).toEqual([]);

  // Handing over: full management, and still nothing to send.
  await mergePatchAgd(h, 'observed', { spec: { managementPolicies: ['*'] } });
  const managed = await eventually(async () => {
    const o = await getAgd(h, 'observed');
    return o.status?.observedGeneration === o.metadata.generation && condition(o, 'Ready')?.status === 'True'
      ? o
      : undefined;
  }, 'Ready under full management');
  expect(managed.metadata.finalizers).toContain('deploy.agents.dev/finalizer');
  expect(condition(managed, 'Drifted')).toBeUndefined();
  await sleep(2_500);
  expect(writes(since)).toEqual([]);
});

it('observed by name, deleted with deletionPolicy Delete: the object goes, the deployment stays', {
  timeout: 120_000,
}, async () => {
  const id = await deployedByCi('watched', 'registry.example.com/watched:1');
  await putSecret(h, 'watched-token', { token: 'whatever' });
  const since = h.sim.requests().length;
  await createAgd(h, {
    metadata: { name: 'watched' },
    spec: spec('registry.example.com/watched:1', 'watched-token', { deletionPolicy: 'Delete' }),
  });
  const ready = await waitReady(h, 'watched');
  // Seen by name, not owned: managing it would take the adopt annotation.
  expect(ready.status?.deploymentId).toBeUndefined();
  expect(ready.status?.url ?? null).toBeNull();
  expect(ready.status?.latestRevisionId).toBeDefined();

  await deleteAgd(h, 'watched');
  await eventually(async () => {
    try {
      await getAgd(h, 'watched');
      return false;
    } catch {
      return true;
    }
  }, 'the object gone');
  await sleep(1_500);
  expect(h.sim.deployments().map((d) => d.id)).toContain(id);
  expect(writes(since)).toEqual([]);
});

it('never rolls back: a failed revision under spec.remediation Rollback is reported, nothing is sent', {
  timeout: 60_000,
}, async () => {
  const id = await deployedByCi('observed-failing', 'registry.example.com/agent:1');
  h.sim.failRevisions({ deploymentName: 'observed-failing', at: 'DEPLOY' });
  await ci.patchDeployment(id, { source_revision_config: { image_uri: 'registry.example.com/agent:2' } });
  await putSecret(h, 'observed-failing-secret', { token: 'ci-token' });
  const since = h.sim.requests().length;
  await createAgd(h, {
    metadata: { name: 'observed-failing' },
    spec: spec('registry.example.com/agent:2', 'observed-failing-secret', {
      remediation: { strategy: 'Rollback' },
    }),
  });
  const obj = await eventually(async () => {
    const o = await getAgd(h, 'observed-failing');
    return condition(o, 'Stalled')?.reason === 'RevisionFailed' ? o : undefined;
  }, 'observed-failing Stalled RevisionFailed');
  expect(condition(obj, 'Stalled')?.message).toContain('observe-only: spec.remediation would not roll back');
  await sleep(2_500);
  expect(writes(since)).toStrictEqual([]);
});
