/**
 * Ownership (issue 12), end to end against the real API server and the simulator: a deployment is
 * written (PATCH, DELETE, redeploy) only by the object that created it or was allowed to adopt it.
 * Every test asserts on the simulator's request log (what was sent), not only on status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { AGENT_DEPLOYMENT, GROUP, VERSION } from '../src/api/group.ts';
import { ControlPlaneClient } from '../src/controlplane/client.ts';
import type { Deployment } from '../src/controlplane/schemas.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { DEFAULT_API_KEY, defaultListeners, type Simulator, startSimulator } from '../src/simulator/index.ts';
import {
  AGD_PATH,
  condition,
  eventually,
  type Harness,
  putSecret,
  sleep,
  startHarness,
} from './support/harness.ts';
import { createTestNamespace } from './support/kube.ts';

const LISTENER = defaultListeners()[0]?.id as string;

const spec = (extra: Record<string, unknown> = {}) => ({
  source: 'external_image',
  sourceConfig: { listenerId: LISTENER, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
  sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
  ...extra,
});

let h: Harness;
/** A second namespace the same controller watches, sharing its (default) tenant with h.ns. */
let ns2: string;
let client: ControlPlaneClient;
/** A second control plane the administrator allows, for objects whose credentials switch to it. */
let other: Simulator;

beforeAll(async () => {
  h = await startHarness('agd-own', { withOperator: false });
  ns2 = await createTestNamespace('agd-own-b');
  other = await startSimulator({ revisionStepMs: 50 });
  await h.startOperator({ WATCH_NAMESPACES: `${h.ns},${ns2}`, ALLOWED_CONTROL_PLANE_URLS: other.url });
  client = new ControlPlaneClient({ credentials: { baseUrl: h.sim.url, apiKey: DEFAULT_API_KEY } });
});

afterAll(async () => {
  await client?.close();
  await h?.stop();
  await other?.close();
});

// ---- helpers ----

async function create(ns: string, name: string, body: Record<string, unknown>, annotations = {}) {
  return (await kubeRequest(h.access, {
    method: 'POST',
    path: AGD_PATH(ns),
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: AGENT_DEPLOYMENT.kind,
      metadata: { name, annotations },
      spec: body,
    },
  })) as AgentDeployment;
}
const get = async (ns: string, name: string) =>
  (await kubeRequest(h.access, { method: 'GET', path: `${AGD_PATH(ns)}/${name}` })) as AgentDeployment;
const patch = (ns: string, name: string, body: unknown) =>
  kubeRequest(h.access, {
    method: 'PATCH',
    path: `${AGD_PATH(ns)}/${name}`,
    body,
    contentType: 'application/merge-patch+json',
  });
async function remove(ns: string, name: string) {
  await kubeRequest(h.access, { method: 'DELETE', path: `${AGD_PATH(ns)}/${name}` });
  await eventually(async () => {
    try {
      await get(ns, name);
      return false;
    } catch {
      return true;
    }
  }, `${ns}/${name} gone`);
}

async function until(ns: string, name: string, test: (o: AgentDeployment) => boolean, what: string) {
  return eventually(async () => {
    const o = await get(ns, name);
    return test(o) ? o : undefined;
  }, `${ns}/${name} ${what}`);
}
const ready = (ns: string, name: string) =>
  until(
    ns,
    name,
    (o) => condition(o, 'Ready')?.status === 'True' && o.status?.observedGeneration === o.metadata.generation,
    'Ready',
  );
/** Stalled for this generation; returns the condition. */
async function stalled(ns: string, name: string) {
  const o = await until(
    ns,
    name,
    (o) =>
      condition(o, 'Stalled')?.status === 'True' &&
      condition(o, 'Stalled')?.observedGeneration === o.metadata.generation,
    'Stalled',
  );
  return { obj: o, c: condition(o, 'Stalled') as NonNullable<ReturnType<typeof condition>> };
}

/** A deployment someone else made on the tenant (team a's CI script). */
const madeByCi = (name: string, image = 'registry.example.com/ci:1'): Promise<Deployment> =>
  client.createDeployment({
    name,
    source: 'external_image',
    source_config: { listener_id: LISTENER, resource_spec: { cpu: 0.5, memory_mb: 512, min_scale: 1 } },
    source_revision_config: { image_uri: image },
    secrets: [],
  });

const writesTo = (sim: Simulator, id: string) =>
  sim
    .requests()
    .filter((r) => r.method !== 'GET' && r.path.startsWith(`/v2/deployments/${id}`))
    .map((r) => `${r.method} ${r.path}`);
const postsNamed = (sim: Simulator, name: string) =>
  sim
    .requests({ method: 'POST', route: '/v2/deployments' })
    .filter((r) => (r.body as { name?: string } | undefined)?.name === name);
const named = (sim: Simulator, name: string) => sim.deployments().filter((d) => d.name === name);

// ---- the scenarios of the issue ----

describe('a deployment made by someone else', () => {
  it('an object naming it writes nothing, and deleting the object deletes nothing', async () => {
    const payments = await madeByCi('payments');
    await create(h.ns, 'payments-b', spec({ name: 'payments' }));
    const { obj, c } = await stalled(h.ns, 'payments-b');
    expect(c.reason).toBe('NameConflict');
    expect(c.message).toContain(payments.id);
    expect(c.message).toContain('deploy.agents.dev/adopt-deployment-id');
    expect(obj.status?.deploymentId).toBeUndefined();
    expect(postsNamed(h.sim, 'payments')).toHaveLength(1); // the CI script's own
    await remove(h.ns, 'payments-b');
    await sleep(500);
    expect(writesTo(h.sim, payments.id)).toEqual([]);
    expect(named(h.sim, 'payments').map((d) => [d.id, d.status])).toEqual([[payments.id, 'READY']]);
  });

  it('editing the object does not adopt it silently: no PATCH, still NameConflict', async () => {
    const ledger = await madeByCi('ledger');
    await create(h.ns, 'ledger-b', spec({ name: 'ledger' }));
    await stalled(h.ns, 'ledger-b');
    await patch(h.ns, 'ledger-b', {
      spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/agent:2' } },
    });
    const { obj, c } = await stalled(h.ns, 'ledger-b');
    expect(obj.metadata.generation).toBe(2);
    expect(c.reason).toBe('NameConflict');
    await sleep(1_500); // several poll intervals
    expect(writesTo(h.sim, ledger.id)).toEqual([]);
    expect((await get(h.ns, 'ledger-b')).status?.deploymentId).toBeUndefined();
    expect(named(h.sim, 'ledger')[0]?.source_revision_config.image_uri).toBe('registry.example.com/ci:1');
  });
});

describe('claims are exclusive', () => {
  it('adopting an id another object manages is AlreadyManaged: no PATCH, and its deletion deletes nothing', async () => {
    await create(h.ns, 'owner', spec());
    const owned = await ready(h.ns, 'owner');
    const id = owned.status?.deploymentId as string;
    await create(h.ns, 'thief', spec({ name: 'owner', sourceRevisionConfig: { imageUri: 'evil:1' } }), {
      'deploy.agents.dev/adopt-deployment-id': id,
    });
    const { obj, c } = await stalled(h.ns, 'thief');
    expect(c.reason).toBe('AlreadyManaged');
    expect(c.message).toContain(`${h.ns}/owner`);
    expect(c.message).toContain(id);
    expect(obj.status?.deploymentId).toBeUndefined();
    await sleep(1_000);
    expect(writesTo(h.sim, id)).toEqual([]);
    await remove(h.ns, 'thief');
    await sleep(500);
    expect(writesTo(h.sim, id)).toEqual([]);
    expect(named(h.sim, 'owner').map((d) => d.id)).toEqual([id]);
    expect((await ready(h.ns, 'owner')).status?.deploymentId).toBe(id);
  });

  it('a status copied onto a second object (same id) claims nothing: AlreadyManaged, no PATCH, no DELETE', async () => {
    await create(h.ns, 'original', spec());
    const first = await ready(h.ns, 'original');
    const id = first.status?.deploymentId as string;
    // creationTimestamp has second precision: the copy must be the younger, not a uid coin toss.
    await laterSecondThan(String(first.metadata.creationTimestamp ?? ''));
    // As a hand-made restore would leave it: another object carrying the first one's status.
    await create(h.ns, 'copy', spec({ name: 'original', sourceRevisionConfig: { imageUri: 'copy:1' } }), {
      'deploy.agents.dev/paused': 'true',
    });
    await kubeRequest(h.access, {
      method: 'PATCH',
      path: `${AGD_PATH(h.ns)}/copy/status`,
      body: { status: { deploymentId: id, credentialsDigest: first.status?.credentialsDigest } },
      contentType: 'application/merge-patch+json',
    });
    await patch(h.ns, 'copy', { metadata: { annotations: { 'deploy.agents.dev/paused': null } } });
    const { c } = await stalled(h.ns, 'copy');
    expect(c.reason).toBe('AlreadyManaged');
    expect(c.message).toContain(`${h.ns}/original`);
    await sleep(1_000);
    expect(writesTo(h.sim, id)).toEqual([]);
    await remove(h.ns, 'copy');
    await sleep(500);
    expect(writesTo(h.sim, id)).toEqual([]);
    expect((await ready(h.ns, 'original')).status?.deploymentId).toBe(id);
  });

  it('two objects with one name: the older (then lower uid) creates it, the other is NameConflict and deletes nothing', async () => {
    const [a, b] = await Promise.all([
      create(h.ns, 'twin-a', spec({ name: 'twin' })),
      create(h.ns, 'twin-b', spec({ name: 'twin' })),
    ]);
    const order = [a, b].sort(
      (x, y) =>
        String(x.metadata.creationTimestamp ?? '').localeCompare(
          String(y.metadata.creationTimestamp ?? ''),
        ) || (x.metadata.uid ?? '').localeCompare(y.metadata.uid ?? ''),
    );
    const winner = order[0]?.metadata.name as string;
    const loser = order[1]?.metadata.name as string;
    const won = await ready(h.ns, winner);
    const { c } = await stalled(h.ns, loser);
    expect(c.reason).toBe('NameConflict');
    expect(c.message).toContain(`${h.ns}/${winner}`);
    expect(named(h.sim, 'twin').map((d) => d.id)).toEqual([won.status?.deploymentId]);
    expect(postsNamed(h.sim, 'twin')).toHaveLength(1);
    await remove(h.ns, loser);
    await sleep(500);
    expect(writesTo(h.sim, won.status?.deploymentId as string)).toEqual([]);
    expect(named(h.sim, 'twin')).toHaveLength(1);
  });

  it('two namespaces sharing one tenant: the second object of a name is NameConflict; deleting it leaves the first alone', async () => {
    await create(h.ns, 'shared', spec());
    const first = await ready(h.ns, 'shared');
    const id = first.status?.deploymentId as string;
    await create(ns2, 'shared', spec());
    const { c } = await stalled(ns2, 'shared');
    expect(c.reason).toBe('NameConflict');
    expect(c.message).toContain(`${h.ns}/shared`);
    expect(postsNamed(h.sim, 'shared')).toHaveLength(1);
    await remove(ns2, 'shared');
    await sleep(500);
    expect(writesTo(h.sim, id)).toEqual([]);
    expect(named(h.sim, 'shared').map((d) => d.id)).toEqual([id]);
    // Distinct names in the two namespaces each get their own deployment.
    await create(ns2, 'shared-b', spec());
    const other = await ready(ns2, 'shared-b');
    expect(other.status?.deploymentId).not.toBe(id);
    expect((await get(h.ns, 'shared')).status?.deploymentId).toBe(id);
  });
});

describe('the create guard', () => {
  it('a POST whose answer is lost and which commits late makes exactly one deployment, taken as its own', async () => {
    const drop = h.sim.addFault({
      method: 'POST',
      route: '/v2/deployments',
      dropResponse: 'commit-before-next',
      times: 1,
    });
    try {
      await create(h.ns, 'late-commit', spec());
      const obj = await ready(h.ns, 'late-commit');
      const made = named(h.sim, 'late-commit');
      expect(made.map((d) => d.id)).toEqual([obj.status?.deploymentId]);
      // The lost POST (committed late) and at most one retry the platform refused for the taken name.
      expect(postsNamed(h.sim, 'late-commit').filter((r) => r.status === 201)).toHaveLength(1);
      expect(obj.status?.createPendingSince).toBeUndefined();
    } finally {
      drop();
    }
  });

  it('a POST whose answer is lost after it committed is not sent again', async () => {
    const drop = h.sim.addFault({
      method: 'POST',
      route: '/v2/deployments',
      dropResponse: 'after-commit',
      times: 1,
    });
    try {
      await create(h.ns, 'lost-answer', spec());
      const obj = await ready(h.ns, 'lost-answer');
      expect(named(h.sim, 'lost-answer').map((d) => d.id)).toEqual([obj.status?.deploymentId]);
      expect(postsNamed(h.sim, 'lost-answer')).toHaveLength(1);
    } finally {
      drop();
    }
  });
});

describe('credentials', () => {
  it('a 404 after the credentials switched to another base URL is CredentialsChanged, not a second deployment', async () => {
    await putSecret(h, 'other-tenant', { apiKey: DEFAULT_API_KEY, baseUrl: other.url });
    await create(h.ns, 'switched', spec());
    const first = await ready(h.ns, 'switched');
    const id = first.status?.deploymentId as string;
    expect(first.status?.credentialsDigest).toMatch(/^sha256:/);
    await patch(h.ns, 'switched', { spec: { credentialsSecretRef: { name: 'other-tenant' } } });
    const { obj, c } = await stalled(h.ns, 'switched');
    expect(c.reason).toBe('CredentialsChanged');
    expect(c.message).toContain(id);
    expect(obj.status?.deploymentId).toBe(id);
    await sleep(1_000);
    expect(other.requests({ method: 'POST' })).toHaveLength(0);
    expect(other.deployments()).toHaveLength(0);
    // Deleting it now would orphan the original without a word: the finalizer stays, saying why.
    await kubeRequest(h.access, { method: 'DELETE', path: `${AGD_PATH(h.ns)}/switched` });
    await until(
      h.ns,
      'switched',
      (o) => condition(o, 'Stalled')?.reason === 'CredentialsChanged' && !!o.metadata.deletionTimestamp,
      'deleting, CredentialsChanged',
    );
    expect(named(h.sim, 'switched').map((d) => d.id)).toEqual([id]);
    // Back to the credentials that made it: deleted where it lives.
    await patch(h.ns, 'switched', { spec: { credentialsSecretRef: null } });
    await eventually(async () => {
      try {
        await get(h.ns, 'switched');
        return false;
      } catch {
        return true;
      }
    }, 'switched gone');
    expect(writesTo(h.sim, id)).toContain(`DELETE /v2/deployments/${id}`);
    expect(other.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

/** Waits until the clock is in a later second than an RFC 3339 timestamp of second precision. */
async function laterSecondThan(timestamp: string | undefined): Promise<void> {
  const after = Date.parse(String(timestamp ?? '')) + 1_000;
  if (Number.isFinite(after) && Date.now() < after) await sleep(after - Date.now() + 50);
}
