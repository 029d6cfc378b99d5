/**
 * Credentials stay where they belong (issue 12), end to end against the real API server and the
 * simulator: the controller's key never reaches a URL a namespace chose (a local HTTP server stands for
 * the foreign host and records what reaches it), a namespace's verification key reaches its own URL, agent
 * server error bodies never land raw in status or events, a namespace the administrator did not allow
 * writes nothing with the default credentials (also not through the adopt annotation), and a credentials
 * Secret outlives the objects that need it, so deleting both at once (what a namespace deletion does)
 * still applies the deletion policy.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../src/controlplane/client.ts';
import { isNotFound } from '../src/kube/errors.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { DEFAULT_API_KEY } from '../src/simulator/index.ts';
import { externalImage, LISTENER } from './support/agd-objects.ts';
import {
  condition,
  createAgd,
  deleteAgd,
  eventually,
  getAgd,
  type Harness,
  listEvents,
  putSecret,
  sleep,
  startHarness,
  waitReady,
} from './support/harness.ts';

/** A second key the simulator accepts: a team's own credentials. */
const TEAM_KEY = 'team-api-key-5c1e';
const IN_USE = 'deploy.agents.dev/credentials-in-use';

/** A host outside the allow-list (another port on loopback): it records every request it gets. */
interface Foreign {
  url: string;
  seen: { method: string; path: string; headers: IncomingHttpHeaders }[];
  answer: { status: number; type: string; body: string };
  close(): Promise<void>;
}

async function startForeign(): Promise<Foreign> {
  const foreign = {
    seen: [],
    answer: { status: 200, type: 'application/json', body: '{"ok":true}' },
  } as unknown as Foreign;
  const server: Server = createServer((req, res) => {
    foreign.seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    req.resume();
    res.writeHead(foreign.answer.status, { 'content-type': foreign.answer.type }).end(foreign.answer.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  foreign.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  foreign.close = () => new Promise<void>((r) => server.close(() => r()));
  return foreign;
}

let h: Harness;
let foreign: Foreign;

beforeAll(async () => {
  foreign = await startForeign();
  h = await startHarness('creds', {
    simulator: { apiKeys: [DEFAULT_API_KEY, TEAM_KEY] },
    // The namespace's own agent server below listens on loopback, an internal address: allowed here.
    env: { VERIFICATION_BACKOFF: '300ms', AGENT_SERVER_ALLOWED_INTERNAL_ADDRESSES: '127.0.0.1' },
  });
});

afterAll(async () => {
  await h?.stop();
  await foreign?.close();
});

const readSecret = (ns: string, name: string) =>
  kubeRequest(h.access, {
    method: 'GET',
    path: `/api/v1/namespaces/${ns}/secrets/${name}`,
  }) as Promise<V1Secret>;

const gone = async (read: () => Promise<unknown>) => {
  try {
    await read();
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
};

describe('the controller key and agent-server hosts', () => {
  it("sends the controller's key to no customUrl: the calls carry none, and the status says so", async () => {
    foreign.seen.length = 0;
    await createAgd(
      h,
      externalImage(
        'foreign-url',
        { verification: { assistantId: 'agent', webhook: false } },
        { customUrl: `${foreign.url}/agent` },
      ),
    );
    const obj = await eventually(
      async () => {
        const o = await getAgd(h, 'foreign-url');
        return o.status?.verification?.last ? o : undefined;
      },
      'foreign-url verified once',
      60_000,
    );
    expect(foreign.seen[0]).toMatchObject({ method: 'GET', path: '/agent/ok' });
    expect(foreign.seen.filter((r) => r.headers['x-api-key'] || r.headers.authorization)).toEqual([]);
    const verified = condition(obj, 'Verified')?.message ?? '';
    expect(verified).toContain('no key was sent');
    expect(verified).toContain('spec.verification.credentialsSecretRef');
    await deleteAgd(h, 'foreign-url');
  });

  it("sends a namespace's verification key to its URL, and quotes nothing of the server's error body", async () => {
    foreign.seen.length = 0;
    const marker = 'INTERNAL-ONLY-7f3a';
    foreign.answer = {
      status: 500,
      type: 'text/html',
      body: `<html>\u001b[2J\u0000${marker} admin password=hunter2\r\n${'<p>junk</p>'.repeat(400)}</html>`,
    };
    await putSecret(h, 'team-creds', { apiKey: TEAM_KEY });
    await createAgd(
      h,
      externalImage(
        'own-url',
        {
          credentialsSecretRef: { name: 'team-creds' },
          verification: {
            assistantId: 'agent',
            webhook: false,
            credentialsSecretRef: { name: 'team-creds' },
          },
        },
        { customUrl: `${foreign.url}/own` },
      ),
    );
    const obj = await eventually(
      async () => {
        const o = await getAgd(h, 'own-url');
        return o.status?.verification?.last?.outcome === 'Failed' ? o : undefined;
      },
      'own-url verification Failed',
      60_000,
    );
    // The first test's object may still be verifying at /agent: this one's calls are those under /own.
    const own = foreign.seen.filter((r) => r.path.startsWith('/own/'));
    expect(own[0]).toMatchObject({ method: 'GET', path: '/own/ok' });
    expect(own.every((r) => r.headers['x-api-key'] === TEAM_KEY)).toBe(true);

    const message = obj.status?.verification?.last?.message ?? '';
    expect(message).toBe('GET /ok answered 500');
    const verified = condition(obj, 'Verified')?.message ?? '';
    const events = (await listEvents(h, 'own-url')).filter((e) => e.reason === 'VerificationFailed');
    expect(events.length).toBeGreaterThan(0);
    for (const text of [
      message,
      verified,
      condition(obj, 'Ready')?.message ?? '',
      ...events.map((e) => e.message),
    ]) {
      expect(text).not.toContain(marker);
      expect(text).not.toContain('hunter2');
      expect(text).toMatch(/^[\x20-\x7e…]*$/); // printable only: no escape, NUL or line break
      expect(text.length).toBeLessThan(600);
    }
    foreign.answer = { status: 200, type: 'application/json', body: '{"ok":true}' };
  });
});

describe('credentials Secrets outlive the objects that need them', () => {
  // The test API server runs no controllers, so there is no namespace deletion to watch: this deletes what
  // the namespace controller would, the Secret first (the order that made namespaces hang).
  it('deletes the deployment even when its credentials Secret is deleted first', async () => {
    await putSecret(h, 'leaving-creds', { apiKey: TEAM_KEY });
    await createAgd(h, externalImage('leaving', { credentialsSecretRef: { name: 'leaving-creds' } }));
    await waitReady(h, 'leaving', 60_000);
    const protectedSecret = await eventually(async () => {
      const s = await readSecret(h.ns, 'leaving-creds');
      return s.metadata?.finalizers?.includes(IN_USE) ? s : undefined;
    }, 'the in-use finalizer on leaving-creds');
    expect(protectedSecret.metadata?.finalizers).toEqual([IN_USE]);
    expect(h.sim.deployments().some((d) => d.name === 'leaving')).toBe(true);

    await kubeRequest(h.access, {
      method: 'DELETE',
      path: `/api/v1/namespaces/${h.ns}/secrets/leaving-creds`,
    });
    await deleteAgd(h, 'leaving');
    await eventually(() => gone(() => getAgd(h, 'leaving')), 'leaving deleted', 60_000);
    expect(h.sim.deployments().some((d) => d.name === 'leaving')).toBe(false);
    const deletes = h.sim.requests({ method: 'DELETE' });
    expect(deletes.length).toBeGreaterThan(0);
    // Then the Secret goes too: the finalizer is released once no object needs it.
    await eventually(() => gone(() => readSecret(h.ns, 'leaving-creds')), 'leaving-creds deleted', 30_000);
  });

  it('releases a Secret no object names any more', async () => {
    await putSecret(h, 'old-creds', { apiKey: TEAM_KEY });
    await putSecret(h, 'new-creds', { apiKey: TEAM_KEY });
    await createAgd(h, externalImage('switching', { credentialsSecretRef: { name: 'old-creds' } }));
    await eventually(
      async () => (await readSecret(h.ns, 'old-creds')).metadata?.finalizers?.includes(IN_USE),
      'the in-use finalizer on old-creds',
      60_000,
    );
    await kubeRequest(h.access, {
      method: 'PATCH',
      path: `/apis/deploy.agents.dev/v1alpha1/namespaces/${h.ns}/agentdeployments/switching`,
      body: { spec: { credentialsSecretRef: { name: 'new-creds' } } },
      contentType: 'application/merge-patch+json',
    });
    await eventually(
      async () => {
        const [oldS, newS] = [await readSecret(h.ns, 'old-creds'), await readSecret(h.ns, 'new-creds')];
        return !oldS.metadata?.finalizers?.includes(IN_USE) && newS.metadata?.finalizers?.includes(IN_USE);
      },
      'the finalizer moved from old-creds to new-creds',
      60_000,
    );
  });
});

describe('default credentials scoped to namespaces', () => {
  let scoped: Harness;
  let client: ControlPlaneClient;
  const SELECTOR_LABEL = 'agents.test/default-credentials';

  beforeAll(async () => {
    scoped = await startHarness('creds-scope', {
      simulator: { apiKeys: [DEFAULT_API_KEY, TEAM_KEY] },
      env: {
        DEFAULT_CREDENTIALS_NAMESPACES: 'some-other-namespace',
        DEFAULT_CREDENTIALS_NAMESPACE_SELECTOR: `${SELECTOR_LABEL}=true`,
      },
    });
    client = new ControlPlaneClient({ credentials: { baseUrl: scoped.sim.url, apiKey: DEFAULT_API_KEY } });
  });

  afterAll(async () => {
    await client?.close();
    await scoped?.stop();
  });

  const stalledOn = (name: string) =>
    eventually(
      async () => {
        const o = await getAgd(scoped, name);
        return condition(o, 'Stalled')?.reason === 'DefaultCredentialsNotAllowed' ? o : undefined;
      },
      `${name} Stalled DefaultCredentialsNotAllowed`,
      60_000,
    );

  it('an object of a namespace not allowed writes nothing, adopts nothing, and goes on once allowed', async () => {
    const existing = await client.createDeployment({
      name: 'taken-over',
      source: 'external_image',
      source_config: { listener_id: LISTENER, resource_spec: { cpu: 0.5, memory_mb: 512, min_scale: 1 } },
      source_revision_config: { image_uri: 'registry.example.com/agent:1' },
      secrets: [],
    });
    scoped.sim.resetRequests();

    await createAgd(scoped, externalImage('unscoped'));
    await createAgd(scoped, {
      ...externalImage('taken-over', {}, {}),
      metadata: {
        name: 'taken-over',
        annotations: { 'deploy.agents.dev/adopt-deployment-id': existing.id },
      },
    });
    const unscoped = await stalledOn('unscoped');
    const adopting = await stalledOn('taken-over');
    expect(condition(unscoped, 'Stalled')?.message).toContain(`namespace ${scoped.ns}`);
    expect(condition(unscoped, 'Stalled')?.message).toContain('spec.credentialsSecretRef');
    expect(condition(adopting, 'Stalled')?.message).toContain('adopt-deployment-id');
    expect(unscoped.metadata.finalizers ?? []).toEqual([]);
    // Its own credentials work in the same namespace.
    await putSecret(scoped, 'team-creds', { apiKey: TEAM_KEY });
    await createAgd(scoped, externalImage('own-creds', { credentialsSecretRef: { name: 'team-creds' } }));
    await waitReady(scoped, 'own-creds', 60_000);
    await sleep(1_500);
    const writes = scoped.sim
      .requests()
      .filter((r) => !r.path.startsWith('/_simulator') && r.method !== 'GET')
      .map((r) => (r.body as { name?: string } | undefined)?.name ?? r.path);
    expect(writes).toEqual(['own-creds']);
    expect(scoped.sim.requests().filter((r) => r.path.includes(existing.id))).toEqual([]);
    expect(
      scoped.sim
        .deployments()
        .map((d) => d.name)
        .sort(),
    ).toEqual(['own-creds', 'taken-over']);

    // The namespace gets the label: the objects go on without being touched.
    await kubeRequest(scoped.access, {
      method: 'PATCH',
      path: `/api/v1/namespaces/${scoped.ns}`,
      body: { metadata: { labels: { [SELECTOR_LABEL]: 'true' } } },
      contentType: 'application/merge-patch+json',
    });
    await waitReady(scoped, 'unscoped', 60_000);
    const adopted = await waitReady(scoped, 'taken-over', 60_000);
    expect(adopted.status?.deploymentId).toBe(existing.id);
  });

  it('an object of a namespace not allowed leaves without a finalizer to wait for', async () => {
    await kubeRequest(scoped.access, {
      method: 'PATCH',
      path: `/api/v1/namespaces/${scoped.ns}`,
      body: { metadata: { labels: { [SELECTOR_LABEL]: null } } },
      contentType: 'application/merge-patch+json',
    });
    await createAgd(scoped, externalImage('leaves-freely'));
    await stalledOn('leaves-freely');
    await deleteAgd(scoped, 'leaves-freely');
    await eventually(() => gone(() => getAgd(scoped, 'leaves-freely')), 'leaves-freely deleted');
  });

  it('a SandboxTemplate of a namespace not allowed lists nothing with the default credentials', async () => {
    scoped.sim.resetRequests();
    await kubeRequest(scoped.access, {
      method: 'POST',
      path: `/apis/deploy.agents.dev/v1alpha1/namespaces/${scoped.ns}/sandboxtemplates`,
      body: {
        apiVersion: 'deploy.agents.dev/v1alpha1',
        kind: 'SandboxTemplate',
        metadata: { name: 'python-data' },
        spec: { templateName: 'python-data' },
      },
    });
    const template = await eventually(async () => {
      const t = (await kubeRequest(scoped.access, {
        method: 'GET',
        path: `/apis/deploy.agents.dev/v1alpha1/namespaces/${scoped.ns}/sandboxtemplates/python-data`,
      })) as { status?: { conditions?: { type: string; reason: string; message: string }[] } };
      const stalled = t.status?.conditions?.find((c) => c.type === 'Stalled');
      return stalled?.reason === 'DefaultCredentialsNotAllowed' ? stalled : undefined;
    }, 'python-data Stalled DefaultCredentialsNotAllowed');
    expect(template.message).toContain(`namespace ${scoped.ns}`);
    expect(scoped.sim.requests({ route: '/v2/sandboxes/templates' })).toEqual([]);
  });

  it('an object that manages a deployment, once its namespace is no longer allowed, deletes nothing: Orphan releases it', async () => {
    // 'unscoped' created its deployment while the namespace carried the label (the first test).
    const id = (await getAgd(scoped, 'unscoped')).status?.deploymentId as string;
    expect(id).toBeDefined();
    await stalledOn('unscoped');
    // Not even the batched poll reads it with the controller's credentials any more.
    scoped.sim.resetRequests();
    await sleep(2_000);
    const touching = scoped.sim
      .requests()
      .filter((r) => r.path.includes(id) || JSON.stringify(r.query).includes(id));
    expect(touching).toEqual([]);
    await deleteAgd(scoped, 'unscoped');
    const held = await eventually(async () => {
      const o = await getAgd(scoped, 'unscoped');
      return condition(o, 'Reconciling')?.reason === 'DefaultCredentialsNotAllowed' ? o : undefined;
    }, 'unscoped held by its finalizer, saying why');
    expect(condition(held, 'Reconciling')?.message).toContain('deletionPolicy to Orphan');
    await sleep(1_500);
    expect(scoped.sim.requests({ method: 'DELETE' })).toEqual([]);
    await kubeRequest(scoped.access, {
      method: 'PATCH',
      path: `/apis/deploy.agents.dev/v1alpha1/namespaces/${scoped.ns}/agentdeployments/unscoped`,
      body: { spec: { deletionPolicy: 'Orphan' } },
      contentType: 'application/merge-patch+json',
    });
    await eventually(() => gone(() => getAgd(scoped, 'unscoped')), 'unscoped released');
    expect(scoped.sim.deployments().some((d) => d.id === id)).toBe(true);
  });
});
