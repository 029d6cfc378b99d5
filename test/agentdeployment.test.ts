/**
 * AgentDeployment end to end: the real API server, the operator in-process, the simulator over HTTP.
 * Each test asserts on the simulator's request log and on the object's status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../src/controlplane/client.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { DEFAULT_API_KEY } from '../src/simulator/index.ts';
import { externalImage, LISTENER, repoHost } from './support/agd-objects.ts';
import {
  AGD_PATH,
  condition,
  createAgd,
  deleteAgd,
  eventually,
  getAgd,
  type Harness,
  listEvents,
  mergePatchAgd,
  putSecret,
  sleep,
  startHarness,
  waitReady,
} from './support/harness.ts';

let h: Harness;
let client: ControlPlaneClient;

beforeAll(async () => {
  h = await startHarness('agd');
  client = new ControlPlaneClient({ credentials: { baseUrl: h.sim.url, apiKey: DEFAULT_API_KEY } });
});

afterAll(async () => {
  await client?.close();
  await h?.stop();
});

const deploymentsNamed = (name: string) => h.sim.deployments().filter((d) => d.name === name);
const patchesOf = (id: string) => h.sim.requests({ method: 'PATCH' }).filter((r) => r.path.endsWith(id));
const postsNamed = (name: string) =>
  h.sim
    .requests({ method: 'POST', route: '/v2/deployments' })
    .filter((r) => (r.body as { name?: string })?.name === name);

/** Writes status fields directly, as a crash or a restore would leave them. */
async function setStatus(name: string, status: Record<string, unknown>) {
  await kubeRequest(h.access, {
    method: 'PATCH',
    path: `${AGD_PATH(h.ns)}/${name}/status`,
    body: { status },
    contentType: 'application/merge-patch+json',
  });
}

async function stalled(name: string) {
  return eventually(async () => {
    const obj = await getAgd(h, name);
    const c = condition(obj, 'Stalled');
    return c?.status === 'True' && c.observedGeneration === obj.metadata.generation ? { obj, c } : undefined;
  }, `${name} Stalled`);
}

describe('create', () => {
  it('creates a repo_host deployment and follows its revision to DEPLOYED', async () => {
    await createAgd(h, repoHost('repo-agent'));
    const obj = await waitReady(h, 'repo-agent');
    const [deployment] = deploymentsNamed('repo-agent');
    expect(deploymentsNamed('repo-agent')).toHaveLength(1);
    expect(postsNamed('repo-agent')).toHaveLength(1);
    expect(obj.status).toMatchObject({
      deploymentId: deployment?.id,
      latestRevisionId: deployment?.latest_revision_id,
      activeRevisionId: deployment?.latest_revision_id,
      revisionStatus: 'DEPLOYED',
      deploymentStatus: 'READY',
      url: deployment?.source_config.custom_url,
    });
    expect(obj.status?.repoCommitSha).toMatch(/^[0-9a-f]{7,}$/);
    expect(obj.metadata.finalizers).toContain('deploy.agents.dev/finalizer');
    const reasons = (await listEvents(h, 'repo-agent')).map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['Created', 'RevisionDeployed']));
  });

  it('creates an external_image deployment with its resource spec in the document shapes', async () => {
    await createAgd(
      h,
      externalImage(
        'image-agent',
        {},
        {
          resourceSpec: {
            cpu: 0.5,
            memoryMb: 512,
            volumes: [{ name: 'cache', emptyDir: {} }],
            volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
            sidecars: [{ name: 'proxy', image: 'envoy:1', resources: { limits: { cpu: '250m' } } }],
          },
        },
      ),
    );
    await waitReady(h, 'image-agent');
    const [post] = postsNamed('image-agent');
    expect(post?.body).toMatchObject({
      name: 'image-agent',
      source: 'external_image',
      source_config: {
        listener_id: LISTENER,
        resource_spec: {
          cpu: 0.5,
          memory_mb: 512,
          volumes: [{ name: 'cache', emptyDir: {} }],
          volume_mounts: [{ name: 'cache', mountPath: '/cache' }],
          sidecars: [{ name: 'proxy', image: 'envoy:1', resources: { limits: { cpu: '250m' } } }],
        },
      },
      source_revision_config: { image_uri: 'registry.example.com/agent:1' },
      secrets: [],
    });
  });
});

describe('steady state', () => {
  it('makes no PATCH and no status write over several poll intervals', async () => {
    await createAgd(h, externalImage('steady'));
    const ready = await waitReady(h, 'steady');
    const id = ready.status?.deploymentId as string;
    await sleep(1_500); // let the last post-ready pass settle
    const before = await getAgd(h, 'steady');
    const observations = () =>
      h.sim
        .requests({ method: 'GET', route: '/v2/deployments' })
        .filter((r) => (r.query.deployment_ids ?? '').split(',').includes(id)).length;
    const gets = () => h.sim.requests({ method: 'GET' }).filter((r) => r.path.endsWith(id)).length;
    const [listsBefore, getsBefore] = [observations(), gets()];
    await sleep(3_500); // three poll intervals of 1 s
    const after = await getAgd(h, 'steady');
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(patchesOf(id)).toHaveLength(0);
    // It kept observing, through the batched list (deployment_ids), not one GET per object.
    expect(observations()).toBeGreaterThanOrEqual(listsBefore + 2);
    expect(gets()).toBe(getsBefore);
  });
});

describe('drift', () => {
  it.each<[string, (name: string) => Promise<void>, unknown]>([
    [
      'a revision field',
      (name) =>
        mergePatchAgd(h, name, {
          spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/agent:2' } },
        }).then(() => {}),
      { source_revision_config: { image_uri: 'registry.example.com/agent:2' } },
    ],
    [
      'a resourceSpec part (the whole desired resourceSpec is sent)',
      (name) =>
        mergePatchAgd(h, name, { spec: { sourceConfig: { resourceSpec: { cpu: 1 } } } }).then(() => {}),
      { source_config: { resource_spec: { cpu: 1, memory_mb: 512, min_scale: 1 } } },
    ],
    [
      'a non-revision field',
      (name) =>
        mergePatchAgd(h, name, { spec: { sourceConfig: { customUrl: 'https://agent.example.com' } } }).then(
          () => {},
        ),
      { source_config: { custom_url: 'https://agent.example.com' } },
    ],
  ])('%s produces exactly the expected PATCH', async (what, change, body) => {
    const name = `drift-${what.split(' ')[1]}`.toLowerCase().replace(/[^a-z-]/g, '');
    await createAgd(h, externalImage(name));
    const ready = await waitReady(h, name);
    const id = ready.status?.deploymentId as string;
    await change(name);
    await eventually(async () => patchesOf(id).length > 0, `PATCH of ${name}`);
    const changed = await waitReady(h, name);
    expect(patchesOf(id).map((r) => r.body)).toEqual([body]);
    expect(changed.status?.observedGeneration).toBe(changed.metadata.generation);
  });

  it('sends the rotated value when a referenced Secret changes, and never shows it', async () => {
    await putSecret(h, 'llm-keys', { OPENAI_API_KEY: 'sk-rotate-me-1' });
    await createAgd(
      h,
      externalImage('rotate', {
        secrets: [
          {
            name: 'OPENAI_API_KEY',
            valueFrom: { secretKeyRef: { name: 'llm-keys', key: 'OPENAI_API_KEY' } },
          },
        ],
      }),
    );
    const ready = await waitReady(h, 'rotate');
    const id = ready.status?.deploymentId as string;
    expect(postsNamed('rotate')[0]?.body).toMatchObject({
      secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-rotate-me-1' }],
    });
    await putSecret(h, 'llm-keys', { OPENAI_API_KEY: 'sk-rotate-me-2' });
    await eventually(async () => patchesOf(id).length > 0, 'PATCH after rotation');
    const after = await eventually(async () => {
      const obj = await waitReady(h, 'rotate');
      return obj.status?.secretsDigest !== ready.status?.secretsDigest ? obj : undefined;
    }, 'Ready with the rotated secrets applied');
    expect(patchesOf(id).map((r) => r.body)).toEqual([
      { secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-rotate-me-2' }] },
    ]);
    expect(after.status?.secretsDigest).not.toBe(ready.status?.secretsDigest);
    const visible = JSON.stringify([after, await listEvents(h, 'rotate'), h.logs]);
    expect(visible).not.toContain('sk-rotate-me');
  });

  it('waits, without creating anything, while a referenced Secret is missing', async () => {
    await createAgd(
      h,
      externalImage('waits', {
        secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'later', key: 'token' } } }],
      }),
    );
    const waiting = await eventually(async () => {
      const c = condition(await getAgd(h, 'waits'), 'Ready');
      return c?.reason === 'WaitingForSecret' ? c : undefined;
    }, 'WaitingForSecret');
    expect(waiting.message).toContain('Secret later');
    expect(postsNamed('waits')).toHaveLength(0);
    await putSecret(h, 'later', { token: 'tok-123' });
    await waitReady(h, 'waits');
    expect(postsNamed('waits')).toHaveLength(1);
  });
});

describe('refusals', () => {
  it('refuses to adopt a deployment of another name: nothing recorded, nothing sent', async () => {
    const other = await client.createDeployment({
      name: 'someone-else',
      source: 'external_image',
      source_config: { listener_id: LISTENER },
      source_revision_config: { image_uri: 'registry.example.com/other:1' },
      secrets: [],
    });
    await createAgd(h, {
      ...externalImage('adopt-wrong-name'),
      metadata: {
        name: 'adopt-wrong-name',
        annotations: { 'deploy.agents.dev/adopt-deployment-id': other.id },
      },
    });
    const { obj, c } = await stalled('adopt-wrong-name');
    expect(c.reason).toBe('AdoptionFailed');
    expect(c.message).toContain('someone-else');
    // Not this object's: deleting it must not delete the other deployment.
    expect(obj.status?.deploymentId).toBeUndefined();
    await sleep(1_500);
    expect(patchesOf(other.id)).toHaveLength(0);
  });

  it('turns a 422 into Stalled with the validation message', async () => {
    await createAgd(h, externalImage('bad-listener', {}, { listenerId: 'not-a-uuid' }));
    const { c } = await stalled('bad-listener');
    expect(c.reason).toBe('Rejected');
    expect(c.message).toContain('listener_id');
    const posts = postsNamed('bad-listener').length;
    await sleep(2_500);
    expect(postsNamed('bad-listener')).toHaveLength(posts); // no retry until the object changes
  });

  it('turns a 400 into Stalled with the detail quoted', async () => {
    const remove = h.sim.addFault({ method: 'POST', route: '/v2/deployments', status: 400, times: 1 });
    await createAgd(h, externalImage('refused'));
    const { c } = await stalled('refused');
    remove();
    expect(c.reason).toBe('Rejected');
    expect(c.message).toContain('Injected fault: status 400');
  });

  it('marks a failed build Stalled and does not retry until the spec changes', async () => {
    h.sim.failRevisions({ deploymentName: 'broken-build', at: 'BUILD' });
    await createAgd(h, repoHost('broken-build'));
    const { obj, c } = await stalled('broken-build');
    expect(c.reason).toBe('RevisionFailed');
    expect(c.message).toContain('BUILD_FAILED');
    expect(obj.status?.revisionStatus).toBe('BUILD_FAILED');
    expect(condition(obj, 'Ready')?.status).toBe('False');
    await sleep(2_000);
    expect(patchesOf(obj.status?.deploymentId as string)).toHaveLength(0);
    await mergePatchAgd(h, 'broken-build', { spec: { sourceRevisionConfig: { repoRef: 'fix' } } });
    await waitReady(h, 'broken-build');
    expect(patchesOf(obj.status?.deploymentId as string).map((r) => r.body)).toEqual([
      { source_revision_config: { repo_ref: 'fix' } },
    ]);
  });
});

describe('lifecycle', () => {
  it('creates the deployment again when it is deleted behind the operator', async () => {
    await createAgd(h, externalImage('recreate'));
    const first = await waitReady(h, 'recreate');
    h.sim.deleteDeploymentBehindOperator(first.status?.deploymentId as string);
    const second = await eventually(async () => {
      const obj = await getAgd(h, 'recreate');
      return obj.status?.deploymentId && obj.status.deploymentId !== first.status?.deploymentId
        ? obj
        : undefined;
    }, 'a new deployment id');
    await waitReady(h, 'recreate');
    expect(deploymentsNamed('recreate').map((d) => d.id)).toEqual([second.status?.deploymentId]);
    expect((await listEvents(h, 'recreate')).map((e) => e.reason)).toContain('DeploymentMissing');
  });

  it.each([
    ['Delete', 0],
    ['Orphan', 1],
  ])('deletion policy %s', async (policy, remaining) => {
    const name = `delete-${policy.toLowerCase()}`;
    await createAgd(h, externalImage(name, { deletionPolicy: policy }));
    await waitReady(h, name);
    await deleteAgd(h, name);
    await eventually(async () => {
      try {
        await getAgd(h, name);
        return false;
      } catch {
        return true;
      }
    }, `${name} gone`);
    // The platform deletes asynchronously: the deployment goes once its deletion completes.
    await eventually(async () => deploymentsNamed(name).length === remaining, `${remaining} left of ${name}`);
  });

  it('keeps the finalizer while delete fails, and releases it when the policy becomes Orphan', async () => {
    await createAgd(h, externalImage('stuck-delete'));
    const ready = await waitReady(h, 'stuck-delete');
    const remove = h.sim.addFault({
      method: 'DELETE',
      route: '/v2/deployments/{deployment_id}',
      status: 503,
    });
    await deleteAgd(h, 'stuck-delete');
    const failing = await eventually(async () => {
      const c = condition(await getAgd(h, 'stuck-delete'), 'Reconciling');
      return c?.reason === 'DeleteFailed' ? c : undefined;
    }, 'DeleteFailed');
    expect(failing.message).toContain('Orphan');
    await mergePatchAgd(h, 'stuck-delete', { spec: { deletionPolicy: 'Orphan' } });
    await eventually(async () => {
      try {
        await getAgd(h, 'stuck-delete');
        return false;
      } catch {
        return true;
      }
    }, 'stuck-delete gone');
    remove();
    expect(deploymentsNamed('stuck-delete').map((d) => d.id)).toEqual([ready.status?.deploymentId]);
  });

  it('does nothing while paused, and catches up when resumed', async () => {
    await createAgd(h, externalImage('paused'));
    const ready = await waitReady(h, 'paused');
    const id = ready.status?.deploymentId as string;
    await mergePatchAgd(h, 'paused', {
      metadata: { annotations: { 'deploy.agents.dev/paused': 'true' } },
      spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/agent:9' } },
    });
    await eventually(async () => condition(await getAgd(h, 'paused'), 'Paused')?.status === 'True', 'Paused');
    await sleep(2_000);
    expect(patchesOf(id)).toHaveLength(0);
    await mergePatchAgd(h, 'paused', { metadata: { annotations: { 'deploy.agents.dev/paused': null } } });
    await eventually(async () => patchesOf(id).length === 1, 'PATCH after resume');
    const resumed = await waitReady(h, 'paused');
    expect(condition(resumed, 'Paused')).toBeUndefined();
  });

  it('adopts an existing deployment by annotation without creating one', async () => {
    const existing = await client.createDeployment({
      name: 'adopted',
      source: 'external_image',
      source_config: { listener_id: LISTENER, resource_spec: { cpu: 0.5, memory_mb: 512, min_scale: 1 } },
      source_revision_config: { image_uri: 'registry.example.com/agent:1' },
      secrets: [],
    });
    await createAgd(h, {
      ...externalImage('adopted'),
      metadata: { name: 'adopted', annotations: { 'deploy.agents.dev/adopt-deployment-id': existing.id } },
    });
    const obj = await waitReady(h, 'adopted');
    expect(obj.status?.deploymentId).toBe(existing.id);
    expect(postsNamed('adopted')).toHaveLength(1); // the one this test made
    expect(patchesOf(existing.id)).toHaveLength(0);
  });

  it('takes the deployment a crashed pass created after its create mark, instead of creating a second one', async () => {
    // The state a crash between the POST and the id's write leaves: the finalizer, the create mark
    // written before the POST, a deployment of that name made after it, no id in status.
    const crashed = externalImage('crashed');
    await createAgd(h, {
      ...crashed,
      metadata: {
        ...crashed.metadata,
        finalizers: ['deploy.agents.dev/finalizer'],
        annotations: { 'deploy.agents.dev/paused': 'true' },
      },
    });
    await setStatus('crashed', { createPendingSince: new Date(Date.now() - 1_000).toISOString() });
    const created = await client.createDeployment({
      name: 'crashed',
      source: 'external_image',
      source_config: { listener_id: LISTENER, resource_spec: { cpu: 0.5, memory_mb: 512, min_scale: 1 } },
      source_revision_config: { image_uri: 'registry.example.com/agent:1' },
      secrets: [],
    });
    await mergePatchAgd(h, 'crashed', { metadata: { annotations: { 'deploy.agents.dev/paused': null } } });
    const obj = await waitReady(h, 'crashed');
    expect(obj.status?.deploymentId).toBe(created.id);
    expect(obj.status?.createPendingSince).toBeUndefined();
    expect(deploymentsNamed('crashed')).toHaveLength(1);
    expect(postsNamed('crashed')).toHaveLength(1); // the test's own
    expect((await listEvents(h, 'crashed')).map((e) => e.reason)).toContain('Found');
  });

  it('never takes a deployment of its name made before its create mark: CreateUnconfirmed, nothing sent', async () => {
    const earlier = await client.createDeployment({
      name: 'made-before',
      source: 'external_image',
      source_config: { listener_id: LISTENER },
      source_revision_config: { image_uri: 'registry.example.com/theirs:1' },
      secrets: [],
    });
    const obj = externalImage('made-before');
    await createAgd(h, {
      ...obj,
      metadata: {
        ...obj.metadata,
        finalizers: ['deploy.agents.dev/finalizer'],
        annotations: { 'deploy.agents.dev/paused': 'true' },
      },
    });
    await setStatus('made-before', { createPendingSince: new Date(Date.now() + 1_000).toISOString() });
    await mergePatchAgd(h, 'made-before', {
      metadata: { annotations: { 'deploy.agents.dev/paused': null } },
    });
    const { obj: stalledObj, c } = await stalled('made-before');
    expect(c.reason).toBe('CreateUnconfirmed');
    expect(c.message).toContain(earlier.id);
    expect(c.message).toContain('deploy.agents.dev/adopt-deployment-id');
    expect(stalledObj.status?.deploymentId).toBeUndefined();
    await deleteAgd(h, 'made-before');
    await eventually(async () => {
      try {
        await getAgd(h, 'made-before');
        return false;
      } catch {
        return true;
      }
    }, 'made-before gone');
    expect(h.sim.requests().filter((r) => r.method !== 'GET' && r.path.includes(earlier.id))).toEqual([]);
    expect(deploymentsNamed('made-before').map((d) => d.id)).toEqual([earlier.id]);
  });

  it('does not take over a same-named deployment it never created: NameConflict, nothing sent', async () => {
    const theirs = await client.createDeployment({
      name: 'taken-name',
      source: 'external_image',
      source_config: { listener_id: LISTENER },
      source_revision_config: { image_uri: 'registry.example.com/theirs:1' },
      secrets: [],
    });
    await createAgd(h, externalImage('taken-name'));
    const { c } = await stalled('taken-name');
    expect(c.reason).toBe('NameConflict');
    expect(c.message).toContain('already exists');
    expect(c.message).toContain(`deploy.agents.dev/adopt-deployment-id: ${theirs.id}`);
    expect(deploymentsNamed('taken-name').map((d) => d.id)).toEqual([theirs.id]);
    expect(postsNamed('taken-name')).toHaveLength(1); // the test's own: the object sent none
    expect(patchesOf(theirs.id)).toHaveLength(0);
  });

  it('retries 429, 503 and timeouts with backoff and ends Ready with one deployment', async () => {
    const removers = [
      h.sim.addFault({
        method: 'GET',
        route: '/v2/deployments',
        status: 429,
        retryAfterSeconds: 1,
        times: 2,
      }),
      h.sim.addFault({ method: 'POST', route: '/v2/deployments', status: 503, times: 2 }),
      h.sim.addFault({
        method: 'GET',
        route: '/v2/deployments/{deployment_id}/revisions/{revision_id}',
        dropConnection: true,
        times: 3,
      }),
    ];
    await createAgd(h, externalImage('flaky'));
    await waitReady(h, 'flaky', 60_000);
    for (const remove of removers) remove();
    expect(deploymentsNamed('flaky')).toHaveLength(1);
  });
});

describe('observability', () => {
  it('serves metrics for reconciles, the queue, control-plane calls, objects by condition and leadership', async () => {
    const res = await fetch(`http://127.0.0.1:${h.operator.httpPort}/metrics`);
    const text = await res.text();
    const value = (pattern: RegExp) => Number(text.match(pattern)?.[1] ?? Number.NaN);
    expect(res.status).toBe(200);
    expect(
      value(
        /controller_runtime_reconcile_total\{controller="agentdeployment",result="requeue_after"\} (\d+)/,
      ),
    ).toBeGreaterThan(0);
    expect(
      value(/controller_runtime_reconcile_total\{controller="agentdeployment",result="error"\} (\d+)/),
    ).toBeGreaterThan(0);
    expect(
      value(/controller_runtime_reconcile_errors_total\{controller="agentdeployment"\} (\d+)/),
    ).toBeGreaterThan(0);
    expect(text).toMatch(
      /controller_runtime_reconcile_time_seconds_count\{controller="agentdeployment"\} [1-9]/,
    );
    expect(text).toMatch(
      /controller_runtime_max_concurrent_reconciles\{controller="agentdeployment"\} [1-9]/,
    );
    expect(text).toMatch(/rest_client_requests_total\{code="200",method="GET",host="[^"]+"\} [1-9]/);
    expect(
      value(/agent_operator_controlplane_requests_total\{operation="createDeployment",code="201"\} (\d+)/),
    ).toBeGreaterThan(10);
    expect(
      value(/agent_operator_controlplane_requests_total\{operation="createDeployment",code="503"\} (\d+)/),
    ).toBeGreaterThan(0);
    expect(text).toMatch(
      /agent_operator_controlplane_request_duration_seconds_count\{operation="listDeployments"\} \d+/,
    );
    expect(
      value(/agent_operator_objects\{kind="AgentDeployment",condition="Ready",status="True"\} (\d+)/),
    ).toBeGreaterThan(5);
    expect(
      value(/agent_operator_objects\{kind="AgentDeployment",condition="Stalled",status="True"\} (\d+)/),
    ).toBeGreaterThan(0);
    expect(
      value(
        /agent_operator_objects_by_state\{kind="AgentDeployment",namespace="[^"]+",state="ready",reason="Succeeded"\} (\d+)/,
      ),
    ).toBeGreaterThan(5);
    expect(text).toMatch(/workqueue_depth\{name="agentdeployment",controller="agentdeployment"\} \d+/);
    expect(text).toMatch(
      /workqueue_queue_duration_seconds_count\{name="agentdeployment",controller="agentdeployment"\} [1-9]/,
    );
    expect(text).toMatch(
      /workqueue_retries_total\{name="agentdeployment",controller="agentdeployment"\} [1-9]/,
    );
    expect(text).toMatch(/agent_operator_leader 1/);
    const ready = await fetch(`http://127.0.0.1:${h.operator.httpPort}/readyz`);
    expect(ready.status).toBe(200);
  });
});

describe('secrets stay secret', () => {
  // Runs last in this file: every log line, event and status the tests above produced.
  it('no secret value or credential appears in any log line, event or status', async () => {
    const used = ['sk-rotate-me-1', 'sk-rotate-me-2', 'tok-123', DEFAULT_API_KEY];
    const events = await kubeRequest(h.access, { method: 'GET', path: `/api/v1/namespaces/${h.ns}/events` });
    const objects = (await kubeRequest(h.access, { method: 'GET', path: AGD_PATH(h.ns) })) as {
      items: { status?: unknown }[];
    };
    const statuses = objects.items.map((o) => o.status);
    expect(h.logs.length).toBeGreaterThan(20);
    expect(objects.items.length).toBeGreaterThan(10);
    for (const [what, text] of [
      ['logs', h.logs.join('\n')],
      ['events', JSON.stringify(events)],
      ['statuses', JSON.stringify(statuses)],
    ] as const) {
      for (const secret of used) expect(text.includes(secret), `${secret} in ${what}`).toBe(false);
    }
  });
});
