/**
 * Git is the whole truth (issue 13), end to end against the real API server and the simulator: removals
 * reach the platform, defaults never read as drift, adoption does not redeploy, a failed revision can be
 * retried, a stuck revision meets its deadline, and deletion is followed until the platform is done.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../src/controlplane/client.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { DEFAULT_API_KEY } from '../src/simulator/index.ts';
import { externalImage, LISTENER } from './support/agd-objects.ts';
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
  sleep,
  startHarness,
  waitReady,
} from './support/harness.ts';

let h: Harness;
let client: ControlPlaneClient;

beforeAll(async () => {
  h = await startHarness('agd-life');
  client = new ControlPlaneClient({ credentials: { baseUrl: h.sim.url, apiKey: DEFAULT_API_KEY } });
});

afterAll(async () => {
  await client?.close();
  await h?.stop();
});

const deploymentNamed = (name: string) => h.sim.deployments().find((d) => d.name === name);
const patchesOf = (id: string) => h.sim.requests({ method: 'PATCH' }).filter((r) => r.path.endsWith(id));

async function conditionTrue(name: string, type: string, reason?: string) {
  return eventually(
    async () => {
      const obj = await getAgd(h, name);
      const c = condition(obj, type);
      return c?.status === 'True' && (reason === undefined || c.reason === reason) ? { obj, c } : undefined;
    },
    `${name} ${type} ${reason ?? ''}`,
  );
}

describe('removals reach the platform', () => {
  it('a removed sidecar, volume and secret leave the platform', async () => {
    await createAgd(
      h,
      externalImage(
        'removals',
        {
          secrets: [
            { name: 'KEEP', value: 'a' },
            { name: 'DROP', value: 'b' },
          ],
        },
        { sidecars: [{ name: 'proxy', image: 'proxy:1' }], volumes: [{ name: 'cache', emptyDir: {} }] },
      ),
    );
    await waitReady(h, 'removals');
    // The spec stops stating them at all: no key left to compare, only what the platform still has.
    await mergePatchAgd(h, 'removals', {
      spec: {
        secrets: [{ name: 'KEEP', value: 'a' }],
        sourceConfig: { resourceSpec: { sidecars: null, volumes: null } },
      },
    });
    await eventually(
      async () => {
        const d = deploymentNamed('removals');
        const spec = d?.source_config.resource_spec;
        return (
          spec?.sidecars === undefined &&
          spec?.volumes === undefined &&
          d?.secrets.map((s) => s.name).join() === 'KEEP'
        );
      },
      'sidecar, volume and secret removed on the platform',
      10_000,
    );
    await waitReady(h, 'removals');
  });

  it('removing every secret is reported, never recorded as applied', async () => {
    await createAgd(h, externalImage('all-secrets', { secrets: [{ name: 'ONLY', value: 'a' }] }));
    const ready = await waitReady(h, 'all-secrets');
    await mergePatchAgd(h, 'all-secrets', { spec: { secrets: null } });
    const { obj, c } = await conditionTrue('all-secrets', 'Stalled', 'SecretsRemovalUnsupported');
    expect(c.message).toContain('ONLY');
    expect(obj.status?.secretsDigest).toBe(ready.status?.secretsDigest);
    expect(deploymentNamed('all-secrets')?.secrets.map((s) => s.name)).toEqual(['ONLY']);
    const events = await listEvents(h, 'all-secrets');
    expect(events.some((e) => e.type === 'Warning' && e.reason === 'SecretsRemovalUnsupported')).toBe(true);
  });
});

describe('defaults never read as drift', () => {
  it('a steady object with valueFrom env makes no write across several polls', async () => {
    await createAgd(
      h,
      externalImage(
        'steady-env',
        {},
        {
          resourceSpec: {
            cpu: 0.5,
            memoryMb: 512,
            minScale: 1,
            sidecars: [
              {
                name: 'proxy',
                image: 'proxy:1',
                env: [
                  { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                  { name: 'EMPTY' },
                ],
              },
            ],
          },
        },
      ),
    );
    const ready = await waitReady(h, 'steady-env');
    const id = ready.status?.deploymentId as string;
    const patches = patchesOf(id).length;
    await sleep(3_500); // POLL_INTERVAL is 1s: several polls
    expect(patchesOf(id)).toHaveLength(patches);
    expect((await getAgd(h, 'steady-env')).metadata.resourceVersion).toBe(ready.metadata.resourceVersion);
  });
});

describe('adoption', () => {
  it('an adoption with secrets makes no PATCH; an Event says the secrets were taken as current', async () => {
    const existing = await client.createDeployment({
      name: 'adopt-secrets',
      source: 'external_image',
      source_config: { listener_id: LISTENER, resource_spec: { cpu: 0.5, memory_mb: 512, min_scale: 1 } },
      source_revision_config: { image_uri: 'registry.example.com/agent:1' },
      secrets: [{ name: 'TOKEN', value: 'from-ci' }],
    });
    await createAgd(h, {
      ...externalImage('adopt-secrets', { secrets: [{ name: 'TOKEN', value: 'from-ci' }] }),
      metadata: {
        name: 'adopt-secrets',
        annotations: { 'deploy.agents.dev/adopt-deployment-id': existing.id },
      },
    });
    await waitReady(h, 'adopt-secrets');
    await sleep(1_500);
    expect(patchesOf(existing.id)).toHaveLength(0);
    const reasons = (await listEvents(h, 'adopt-secrets')).map((e) => e.reason);
    expect(reasons).toContain('SecretsTakenAsCurrent');
  });
  it('an object restored without its status does not guess: NameConflict, then adopted by annotation with no PATCH', async () => {
    await createAgd(h, externalImage('restored', { secrets: [{ name: 'TOKEN', value: 'kept' }] }));
    const ready = await waitReady(h, 'restored');
    const id = ready.status?.deploymentId as string;
    const patches = patchesOf(id).length;
    // As a restore from git or a backup without status would leave it (the finalizer kept).
    await kubeRequest(h.access, {
      method: 'PATCH',
      path: `${AGD_PATH(h.ns)}/restored/status`,
      body: { status: null },
      contentType: 'application/merge-patch+json',
    });
    // No record says it made the deployment of its name: it is not taken without a person's word.
    const { c } = await conditionTrue('restored', 'Stalled', 'NameConflict');
    expect(c.message).toContain(`deploy.agents.dev/adopt-deployment-id: ${id}`);
    await mergePatchAgd(h, 'restored', {
      metadata: { annotations: { 'deploy.agents.dev/adopt-deployment-id': id } },
    });
    const again = await eventually(async () => {
      const o = await getAgd(h, 'restored');
      return o.status?.deploymentId && condition(o, 'Ready')?.status === 'True' ? o : undefined;
    }, 'restored Ready again');
    expect(again.status?.deploymentId).toBe(id);
    await sleep(1_500);
    expect(patchesOf(id)).toHaveLength(patches);
    expect(h.sim.revisions(id)).toHaveLength(1);
    const reasons = (await listEvents(h, 'restored')).map((e) => e.reason);
    expect(reasons).toContain('SecretsTakenAsCurrent');
  });
});

describe('failed and stuck revisions', () => {
  it('a failed revision is retried by annotation, once per value', async () => {
    h.sim.failRevisions({ deploymentName: 'retry-by-hand', at: 'DEPLOY' });
    await createAgd(h, externalImage('retry-by-hand'));
    await conditionTrue('retry-by-hand', 'Stalled', 'RevisionFailed');
    const id = deploymentNamed('retry-by-hand')?.id as string;
    await mergePatchAgd(h, 'retry-by-hand', {
      metadata: { annotations: { 'deploy.agents.dev/redeploy-requested-at': '2026-01-01T00:00:00Z' } },
    });
    const obj = await waitReady(h, 'retry-by-hand');
    const redeploys = h.sim
      .requests({ method: 'POST' })
      .filter((r) => r.path.startsWith(`/v2/deployments/${id}/`));
    expect(redeploys).toHaveLength(1);
    expect(obj.status?.lastHandledRedeployAt).toBe('2026-01-01T00:00:00Z');
    await sleep(1_500);
    expect(
      h.sim.requests({ method: 'POST' }).filter((r) => r.path.startsWith(`/v2/deployments/${id}/`)),
    ).toHaveLength(1);
  });

  it('spec.retry redeploys a DEPLOY_FAILED revision by itself', async () => {
    h.sim.failRevisions({ deploymentName: 'retry-auto', at: 'DEPLOY' });
    await createAgd(h, externalImage('retry-auto', { retry: { limit: 2, backoff: '1s' } }));
    const obj = await waitReady(h, 'retry-auto');
    expect(obj.status?.retries).toBe(1);
  });

  it('a build failure is not retried automatically', async () => {
    h.sim.failRevisions({ deploymentName: 'no-build-retry', at: 'BUILD' });
    await createAgd(h, externalImage('no-build-retry', { retry: { limit: 2, backoff: '1s' } }));
    await conditionTrue('no-build-retry', 'Stalled', 'RevisionFailed');
    await sleep(2_000);
    const id = deploymentNamed('no-build-retry')?.id as string;
    expect(h.sim.revisions(id)).toHaveLength(1);
  });

  it('a revision stuck past spec.progressDeadline stalls, naming the revision and its status', async () => {
    h.sim.scriptRevisions({ deploymentName: 'stuck', hold: 'QUEUED' });
    await createAgd(h, externalImage('stuck', { progressDeadline: '5s' }));
    const { obj, c } = await conditionTrue('stuck', 'Stalled', 'ProgressDeadlineExceeded');
    expect(c.message).toContain(obj.status?.latestRevisionId as string);
    expect(c.message).toContain('QUEUED');
    expect(condition(obj, 'Ready')?.status).toBe('False');
  });

  it('Ready needs the deployment READY: an UNKNOWN deployment says what Ready waits for', async () => {
    await createAgd(h, externalImage('unknown-status'));
    const ready = await waitReady(h, 'unknown-status');
    h.sim.setDeploymentStatus(ready.status?.deploymentId as string, 'UNKNOWN');
    const obj = await eventually(async () => {
      const o = await getAgd(h, 'unknown-status');
      return condition(o, 'Ready')?.status === 'False' ? o : undefined;
    }, 'Ready False');
    expect(condition(obj, 'Ready')?.message).toContain('UNKNOWN');
  });
});

describe('deletion is followed to the end', () => {
  it('the finalizer stays while the platform deletes; status shows Deleting with its state', async () => {
    await createAgd(h, externalImage('deleting', { deleteTracingProject: true }));
    const ready = await waitReady(h, 'deleting');
    const id = ready.status?.deploymentId as string;
    h.sim.holdDeletions(true);
    try {
      await deleteAgd(h, 'deleting');
      const obj = await eventually(async () => {
        const o = await getAgd(h, 'deleting');
        return o.status?.deploymentStatus === 'AWAITING_DELETE' ? o : undefined;
      }, 'status shows AWAITING_DELETE');
      expect(obj.metadata.finalizers).toContain('deploy.agents.dev/finalizer');
      expect(condition(obj, 'Reconciling')).toMatchObject({ status: 'True', reason: 'Deleting' });
      const [request] = h.sim.requests({ method: 'DELETE' }).filter((r) => r.path.endsWith(id));
      expect(request?.query).toMatchObject({ delete_tracing_project: 'true' });
    } finally {
      h.sim.holdDeletions(false);
    }
    await eventually(async () => {
      try {
        await getAgd(h, 'deleting');
        return false;
      } catch {
        return true;
      }
    }, 'deleting gone');
    expect(deploymentNamed('deleting')).toBeUndefined();
  });

  it('a deployment someone else deletes is Deleting, nothing changes on it, then it is created again', async () => {
    await createAgd(h, externalImage('deleted-elsewhere'));
    const ready = await waitReady(h, 'deleted-elsewhere');
    const id = ready.status?.deploymentId as string;
    h.sim.holdDeletions(true);
    try {
      await client.deleteDeployment(id);
      // A change the object would otherwise PATCH: nothing may change while the platform deletes (a
      // PATCH sent on a snapshot from before the DELETE is refused, and read as Deleting, not a failure).
      await mergePatchAgd(h, 'deleted-elsewhere', {
        spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/agent:2' } },
      });
      const { c } = await conditionTrue('deleted-elsewhere', 'Reconciling', 'Deleting');
      expect(c.message).toContain(id);
      expect(c.message).toContain('AWAITING_DELETE');
      expect(patchesOf(id).filter((r) => r.status !== 409)).toHaveLength(0);
      await sleep(1_500);
      expect(condition(await getAgd(h, 'deleted-elsewhere'), 'Reconciling')?.reason).toBe('Deleting');
    } finally {
      h.sim.holdDeletions(false);
    }
    const again = await eventually(async () => {
      const o = await getAgd(h, 'deleted-elsewhere');
      return condition(o, 'Ready')?.status === 'True' && o.status?.deploymentId !== id ? o : undefined;
    }, 'created again and Ready');
    expect(deploymentNamed('deleted-elsewhere')?.source_revision_config.image_uri).toBe(
      'registry.example.com/agent:2',
    );
    expect(again.status?.deploymentId).toBe(deploymentNamed('deleted-elsewhere')?.id);
  });

  it('re-creating the same name right after a delete waits for the name instead of stalling', async () => {
    await createAgd(h, externalImage('reuse-a', { name: 'reused-name' }));
    await waitReady(h, 'reuse-a');
    h.sim.holdDeletions(true);
    try {
      await deleteAgd(h, 'reuse-a');
      await eventually(async () => deploymentNamed('reused-name')?.status === 'AWAITING_DELETE', 'deleting');
      await createAgd(h, externalImage('reuse-b', { name: 'reused-name' }));
      await conditionTrue('reuse-b', 'Reconciling');
      await sleep(1_000);
      expect(condition(await getAgd(h, 'reuse-b'), 'Stalled')).toBeUndefined();
    } finally {
      h.sim.holdDeletions(false);
    }
    await waitReady(h, 'reuse-b');
  });
});
