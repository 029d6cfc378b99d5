/**
 * The states the simulator can be put in for tests: transient and held revision statuses, statuses the
 * client does not know, asynchronous deletion, null optional fields, revealed secrets, the EnvVar default.
 * Each is driven over the admin routes, as an out-of-process test would.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Deployment, Revision } from '../controlplane/schemas.ts';
import { SandboxTemplateList } from '../controlplane/template-schemas.ts';
import { type Simulator, startSimulator } from './index.ts';
import { call, createDeployment, externalImageCreate, repoHostCreate } from './test-support.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(revisionStepMs = 5) {
  sim = await startSimulator({ revisionStepMs, templates: [{ name: 'bare', image: 'python:3' }] });
  return sim;
}

async function admin(s: Simulator, path: string, body: unknown) {
  const answer = await call(s, 'POST', `/_simulator/${path}`, { body, auth: false });
  expect(answer.status, JSON.stringify(answer.body)).toBe(204);
}

async function statusesSeen(
  s: Simulator,
  id: string,
  revisionId: string,
  until: (status: string) => boolean,
) {
  const seen: string[] = [];
  await vi.waitFor(
    async () => {
      const answer = await call(s, 'GET', `/v2/deployments/${id}/revisions/${revisionId}`);
      const { status } = Revision.parse(answer.body);
      if (seen.at(-1) !== status) seen.push(status);
      if (!until(status)) throw new Error('not yet');
    },
    { timeout: 10_000, interval: 1 },
  );
  return seen;
}

describe('revision states', () => {
  it.each(['INTERRUPTED', 'UNKNOWN'] as const)('passes through %s and goes on to DEPLOYED', async (state) => {
    const s = await start(30);
    await admin(s, 'script-revisions', { deploymentName: 'flaky', passThrough: state });
    const { id, revisionId } = await createDeployment(s, repoHostCreate('flaky'));
    const seen = await statusesSeen(s, id, revisionId, (st) => st === 'DEPLOYED');
    expect(seen).toContain(state);
    expect(seen.indexOf(state)).toBeLessThan(seen.indexOf('DEPLOYED'));
  });

  it.each(['QUEUED', 'AWAITING_BUILD', 'INTERRUPTED'] as const)('holds a revision in %s', async (state) => {
    const s = await start();
    await admin(s, 'script-revisions', { hold: state });
    const { id, revisionId } = await createDeployment(s, repoHostCreate(`held-${state}`));
    await statusesSeen(s, id, revisionId, (st) => st === state);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(s.revisions(id)[0]?.status).toBe(state);
  });

  it('holds only the revision of the ref a script names, however many come before it', async () => {
    const s = await start();
    await admin(s, 'script-revisions', { deploymentName: 'by-ref', repoRef: 'release', hold: 'QUEUED' });
    const { id, revisionId } = await createDeployment(s, repoHostCreate('by-ref'));
    await statusesSeen(s, id, revisionId, (st) => st === 'DEPLOYED');
    const patched = await call(s, 'PATCH', `/v2/deployments/${id}`, {
      body: { source_revision_config: { repo_ref: 'release' } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const held = s.revisions(id)[0];
    expect(held?.source_revision_config.repo_ref).toBe('release');
    await statusesSeen(s, id, held?.id ?? '', (st) => st === 'QUEUED');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(s.revisions(id)[0]?.status).toBe('QUEUED');
  });

  it('refuses a script that neither passes through nor holds, naming the rule', async () => {
    const s = await start();
    const answer = await call(s, 'POST', '/_simulator/script-revisions', { body: {}, auth: false });
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body)).toContain('give passThrough or hold');
  });

  it('sets a deployment or revision status the client does not know; the read still parses', async () => {
    const s = await start(60_000);
    const { id, revisionId } = await createDeployment(s, externalImageCreate('odd'));
    await admin(s, `deployments/${id}/status`, { status: 'MIGRATING' });
    await admin(s, `deployments/${id}/revisions/${revisionId}/status`, { status: 'WARMING_UP' });
    const deployment = Deployment.parse((await call(s, 'GET', `/v2/deployments/${id}`)).body);
    expect(deployment.status).toBe('MIGRATING');
    const listed = await call(s, 'GET', '/v2/deployments');
    expect((listed.body as { resources: unknown[] }).resources).toHaveLength(1);
    expect(s.revisions(id)[0]?.status).toBe('WARMING_UP');
  });
});

describe('asynchronous deletion', () => {
  it('walks AWAITING_DELETE, AWAITING_FINAL_DELETE, then gone; the name stays taken until then', async () => {
    const s = await start(40);
    const { id } = await createDeployment(s, externalImageCreate('going'));
    expect((await call(s, 'DELETE', `/v2/deployments/${id}`)).status).toBe(204);
    const seen: string[] = [];
    let retakenWhileDeleting: number | undefined;
    await vi.waitFor(
      async () => {
        const answer = await call(s, 'GET', `/v2/deployments/${id}`);
        if (answer.status === 404) return;
        const { status } = Deployment.parse(answer.body);
        if (seen.at(-1) !== status) seen.push(status);
        retakenWhileDeleting ??= (
          await call(s, 'POST', '/v2/deployments', { body: externalImageCreate('going') })
        ).status;
        throw new Error('still there');
      },
      { timeout: 10_000, interval: 1 },
    );
    expect(seen).toStrictEqual(['AWAITING_DELETE', 'AWAITING_FINAL_DELETE']);
    expect(retakenWhileDeleting).toBe(400);
    expect((await call(s, 'POST', '/v2/deployments', { body: externalImageCreate('going') })).status).toBe(
      201,
    );
  });

  it('held deletions stay in AWAITING_DELETE until released', async () => {
    const s = await start();
    await admin(s, 'hold-deletions', { hold: true });
    const { id } = await createDeployment(s, externalImageCreate('held'));
    await call(s, 'DELETE', `/v2/deployments/${id}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(Deployment.parse((await call(s, 'GET', `/v2/deployments/${id}`)).body).status).toBe(
      'AWAITING_DELETE',
    );
    await admin(s, 'hold-deletions', { hold: false });
    await vi.waitFor(async () => expect((await call(s, 'GET', `/v2/deployments/${id}`)).status).toBe(404));
  });
});

describe('presentation', () => {
  it('null optional fields: every unset nullable field is null, and the client schemas still parse', async () => {
    const s = await start(60_000);
    await admin(s, 'presentation', { nullOptionalFields: true });
    const { id } = await createDeployment(s, externalImageCreate('nulls'));
    const body = (await call(s, 'GET', `/v2/deployments/${id}`)).body as Record<
      string,
      Record<string, unknown>
    >;
    expect(body.source_config).toMatchObject({ integration_id: null, repo_url: null, build_on_push: null });
    expect(body.source_revision_config).toMatchObject({ repo_ref: null, graph_config_path: null });
    expect(() => Deployment.parse(body)).not.toThrow();
    const templates = (await call(s, 'GET', '/v2/sandboxes/templates')).body as {
      templates: Array<Record<string, unknown>>;
    };
    expect(templates.templates[0]).toMatchObject({ resources: null, proxy_config: null, registry_id: null });
    const parsed = SandboxTemplateList.parse(templates);
    expect(parsed.templates[0]?.resources).toBeUndefined();
  });

  it('revealed secrets: values are sent as stored', async () => {
    const s = await start(60_000);
    const { id } = await createDeployment(s, externalImageCreate('revealed'));
    expect(Deployment.parse((await call(s, 'GET', `/v2/deployments/${id}`)).body).secrets[0]?.value).toBe(
      '********',
    );
    await admin(s, 'presentation', { revealSecrets: true });
    expect(Deployment.parse((await call(s, 'GET', `/v2/deployments/${id}`)).body).secrets[0]?.value).toBe(
      'secret-value',
    );
  });

  it('echoes value "" for an env var that uses valueFrom or only a name (the EnvVar default)', async () => {
    const s = await start(60_000);
    const valueFrom = { secretKeyRef: { name: 'creds', key: 'token' } };
    const { id } = await createDeployment(
      s,
      externalImageCreate('env-default', {
        source_config: {
          resource_spec: {
            cpu: 1,
            sidecars: [
              { name: 'proxy', image: 'proxy:1', env: [{ name: 'TOKEN', valueFrom }, { name: 'EMPTY' }] },
            ],
          },
        },
      }),
    );
    const deployment = Deployment.parse((await call(s, 'GET', `/v2/deployments/${id}`)).body);
    expect(deployment.source_config.resource_spec?.sidecars?.[0]?.env).toStrictEqual([
      { name: 'TOKEN', value: '', valueFrom },
      { name: 'EMPTY', value: '' },
    ]);
  });
});
