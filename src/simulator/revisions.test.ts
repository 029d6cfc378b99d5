import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  Deployment,
  HTTPValidationError,
  REVISION_FAILED,
  Revision,
  RevisionList,
  type RevisionStatus,
} from '../controlplane/schemas.ts';
import { type Simulator, startSimulator } from './index.ts';
import { call, createDeployment, externalImageCreate, repoHostCreate } from './test-support.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(revisionStepMs = 5) {
  sim = await startSimulator({ revisionStepMs });
  return sim;
}

/** Polls the revision over HTTP, as the document's workflow does, until it reaches a final status. */
async function pollUntilFinal(s: Simulator, id: string, revisionId: string): Promise<RevisionStatus[]> {
  const seen: RevisionStatus[] = [];
  await vi.waitFor(
    async () => {
      const answer = await call(s, 'GET', `/v2/deployments/${id}/revisions/${revisionId}`);
      const revision = Revision.parse(answer.body);
      if (seen.at(-1) !== revision.status) seen.push(revision.status);
      if (!['DEPLOYED', 'SKIPPED', ...REVISION_FAILED].includes(revision.status))
        throw new Error('not final');
    },
    { timeout: 10_000, interval: 1 },
  );
  return seen;
}

const isSubsequence = (observed: string[], plan: string[]) => {
  let i = 0;
  for (const status of plan) if (status === observed[i]) i += 1;
  return i === observed.length;
};

describe('revision lifecycle', () => {
  it.each([
    [
      'repo_host',
      repoHostCreate('lc-repo'),
      ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED'],
    ],
    [
      'external_image',
      externalImageCreate('lc-ext'),
      ['CREATING', 'QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED'],
    ],
  ])('%s walks its statuses to DEPLOYED and the deployment becomes READY', async (_source, body, plan) => {
    const s = await start();
    const { id, revisionId } = await createDeployment(s, body);
    const seen = await pollUntilFinal(s, id, revisionId);
    expect(seen.at(-1)).toBe('DEPLOYED');
    expect(isSubsequence(seen, plan)).toBe(true);
    const deployment = Deployment.parse((await call(s, 'GET', `/v2/deployments/${id}`)).body);
    expect(deployment).toMatchObject({ status: 'READY', active_revision_id: revisionId });
    expect(deployment.image_version).toEqual(expect.any(String));
  });

  it('a revision records id, status, source_revision_config and timestamps', async () => {
    const s = await start(60_000);
    const { id, revisionId } = await createDeployment(s, repoHostCreate('fields'));
    const revision = Revision.parse(
      (await call(s, 'GET', `/v2/deployments/${id}/revisions/${revisionId}`)).body,
    );
    expect(revision).toMatchObject({
      id: revisionId,
      status: 'CREATING',
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    });
    expect(revision.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(Date.parse(revision.created_at)).not.toBeNaN();
  });

  it('a newer revision marks a still-running older one SKIPPED', async () => {
    const s = await start(60_000);
    const { id, revisionId } = await createDeployment(s, externalImageCreate('skip'));
    const patched = await call(s, 'PATCH', `/v2/deployments/${id}`, {
      body: { source_revision_config: { image_uri: 'ghcr.io/acme/agent:2' } },
    });
    const latest = Deployment.parse(patched.body).latest_revision_id;
    expect(latest).not.toBe(revisionId);
    expect(s.revisions(id).map((r) => [r.id, r.status])).toStrictEqual([
      [latest, 'CREATING'],
      [revisionId, 'SKIPPED'],
    ]);
  });

  it.each([
    ['CREATE', 'repo_host', 'CREATE_FAILED'],
    ['BUILD', 'repo_host', 'BUILD_FAILED'],
    ['DEPLOY', 'repo_host', 'DEPLOY_FAILED'],
    ['BUILD', 'external_image', 'BUILD_FAILED'],
    ['DEPLOY', 'external_image', 'DEPLOY_FAILED'],
  ] as const)('failRevisions at %s on %s ends in %s; the next one deploys', async (at, source, failed) => {
    const s = await start();
    const make = (name: string) =>
      source === 'repo_host' ? repoHostCreate(name) : externalImageCreate(name);
    s.failRevisions({ at });
    const first = await createDeployment(s, make('fail-1'));
    expect((await pollUntilFinal(s, first.id, first.revisionId)).at(-1)).toBe(failed);
    const deployment = Deployment.parse((await call(s, 'GET', `/v2/deployments/${first.id}`)).body);
    expect(deployment).toMatchObject({ status: 'AWAITING_DATABASE', active_revision_id: null });
    const second = await createDeployment(s, make('fail-2'));
    expect((await pollUntilFinal(s, second.id, second.revisionId)).at(-1)).toBe('DEPLOYED');
  });

  it('failRevisions matches the deployment name and is used up after times', async () => {
    const s = await start();
    s.failRevisions({ deploymentName: 'target', at: 'CREATE', times: 2 });
    const other = await createDeployment(s, externalImageCreate('other'));
    expect((await pollUntilFinal(s, other.id, other.revisionId)).at(-1)).toBe('DEPLOYED');
    const target = await createDeployment(s, externalImageCreate('target'));
    const outcomes = [(await pollUntilFinal(s, target.id, target.revisionId)).at(-1)];
    for (const value of ['b', 'c']) {
      const patched = await call(s, 'PATCH', `/v2/deployments/${target.id}`, {
        body: { secrets: [{ name: 'A', value }] },
      });
      const latest = Deployment.parse(patched.body).latest_revision_id ?? '';
      outcomes.push((await pollUntilFinal(s, target.id, latest)).at(-1));
    }
    expect(outcomes).toStrictEqual(['CREATE_FAILED', 'CREATE_FAILED', 'DEPLOYED']);
  });

  it('redeploy starts a new revision from an existing one', async () => {
    const s = await start();
    const { id, revisionId } = await createDeployment(s, externalImageCreate('redeploy'));
    await pollUntilFinal(s, id, revisionId);
    await call(s, 'PATCH', `/v2/deployments/${id}`, {
      body: { source_revision_config: { image_uri: 'ghcr.io/acme/agent:2' } },
    });
    const answer = await call(s, 'POST', `/v2/deployments/${id}/revisions/${revisionId}/redeploy`);
    expect(answer.status).toBe(200);
    const deployment = Deployment.parse(answer.body);
    expect(deployment.latest_revision_id).not.toBe(revisionId);
    expect(deployment.source_revision_config.image_uri).toBe('ghcr.io/acme/agent:1.0');
    expect(s.revisions(id)).toHaveLength(3);
  });
});

describe('revision routes', () => {
  it('lists newest first with limit, offset and a comma-separated status filter', async () => {
    const s = await start(60_000);
    const { id, revisionId } = await createDeployment(s, externalImageCreate('list'));
    for (const tag of ['2', '3']) {
      await call(s, 'PATCH', `/v2/deployments/${id}`, {
        body: { source_revision_config: { image_uri: `ghcr.io/acme/agent:${tag}` } },
      });
    }
    const all = RevisionList.parse((await call(s, 'GET', `/v2/deployments/${id}/revisions`)).body);
    expect(all.resources.map((r) => r.source_revision_config.image_uri)).toStrictEqual([
      'ghcr.io/acme/agent:3',
      'ghcr.io/acme/agent:2',
      'ghcr.io/acme/agent:1.0',
    ]);
    expect(all.offset).toBe(3);
    const page = RevisionList.parse(
      (await call(s, 'GET', `/v2/deployments/${id}/revisions?limit=1&offset=1`)).body,
    );
    expect(page.resources.map((r) => r.source_revision_config.image_uri)).toStrictEqual([
      'ghcr.io/acme/agent:2',
    ]);
    const skipped = RevisionList.parse(
      (await call(s, 'GET', `/v2/deployments/${id}/revisions?status=SKIPPED,DEPLOYED`)).body,
    );
    expect(skipped.resources).toHaveLength(2);
    expect(skipped.resources.at(-1)?.id).toBe(revisionId);
  });

  it.each([
    ['status=NOPE', ['query', 'status', 0]],
    ['limit=101', ['query', 'limit']],
  ])('422 for %s', async (query, loc) => {
    const s = await start(60_000);
    const { id } = await createDeployment(s, externalImageCreate('bad'));
    const answer = await call(s, 'GET', `/v2/deployments/${id}/revisions?${query}`);
    expect(answer.status).toBe(422);
    expect(HTTPValidationError.parse(answer.body).detail[0]?.loc).toStrictEqual(loc);
  });

  it.each([
    ['GET', ''],
    ['POST', '/redeploy'],
  ])('%s of an unknown revision is 404 naming it', async (method, suffix) => {
    const s = await start(60_000);
    const { id } = await createDeployment(s, externalImageCreate('missing'));
    const missing = '00000000-0000-4000-8000-00000000abcd';
    const answer = await call(s, method, `/v2/deployments/${id}/revisions/${missing}${suffix}`);
    expect(answer.status).toBe(404);
    expect(answer.body).toStrictEqual({ detail: `Revision ${missing} not found` });
  });
});
