/**
 * A revision's agent fails by what it was made from (its image, ref or commit), not by deployment; a
 * redeploy by id brings back an old revision's source; a push builds; a pruned history answers 404.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Deployment } from '../controlplane/schemas.ts';
import { type Simulator, startSimulator } from './index.ts';
import { API_KEY, call, createDeployment, externalImageCreate, repoHostCreate } from './test-support.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const GOOD = 'ghcr.io/acme/agent:1.0';
const BAD = 'ghcr.io/acme/agent:bad';

async function activeIs(s: Simulator, id: string, revisionId: string) {
  await vi.waitFor(
    () => expect(s.deployments().find((d) => d.id === id)?.active_revision_id).toBe(revisionId),
    {
      timeout: 5_000,
      interval: 5,
    },
  );
}

/** One run on the deployment's agent: 'success' or 'error'. */
async function runOutcome(s: Simulator, id: string): Promise<string> {
  const url = `${s.url}/deployments/${id}`;
  const response = await fetch(`${url}/runs/wait`, {
    method: 'POST',
    headers: { 'X-Api-Key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ assistant_id: 'agent', input: { messages: [{ role: 'human', content: 'hi' }] } }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  return '__error__' in body ? 'error' : 'success';
}

const latestOf = (body: unknown) => Deployment.parse(body).latest_revision_id ?? '';

describe('a revision fails by its image', () => {
  it('the bad image fails every run; redeploying the good revision by id serves it again', async () => {
    const s = await startSimulator({ revisionStepMs: 2 });
    sim = s;
    s.configureRevisionAgent(BAD, { graph: { fail: true, errorMessage: 'bad build' } });
    const { id, revisionId: good } = await createDeployment(s, externalImageCreate('by-image'));
    await activeIs(s, id, good);
    expect(await runOutcome(s, id)).toBe('success');

    const patched = await call(s, 'PATCH', `/v2/deployments/${id}`, {
      body: { source_revision_config: { image_uri: BAD } },
    });
    await activeIs(s, id, latestOf(patched.body));
    expect(await runOutcome(s, id)).toBe('error');

    const redeployed = await call(s, 'POST', `/v2/deployments/${id}/revisions/${good}/redeploy`);
    const back = latestOf(redeployed.body);
    expect(back).not.toBe(good);
    await activeIs(s, id, back);
    expect(await runOutcome(s, id)).toBe('success');
    // The same image fails in another deployment too.
    const other = await createDeployment(
      s,
      externalImageCreate('other', { source_revision_config: { image_uri: BAD } }),
    );
    await activeIs(s, other.id, other.revisionId);
    expect(await runOutcome(s, other.id)).toBe('error');
  });

  it("a redeploy keeps the deployment's current secrets: only the source comes back", async () => {
    const s = await startSimulator({ revisionStepMs: 2 });
    sim = s;
    const { id, revisionId: first } = await createDeployment(s, externalImageCreate('keeps-secrets'));
    await activeIs(s, id, first);
    await call(s, 'PATCH', `/v2/deployments/${id}`, {
      body: {
        source_revision_config: { image_uri: BAD },
        secrets: [{ name: 'API_TOKEN', value: 'rotated' }],
      },
    });
    await call(s, 'POST', `/v2/deployments/${id}/revisions/${first}/redeploy`);
    const deployment = s.deployments().find((d) => d.id === id) as unknown as {
      secrets: { value: string }[];
      source_revision_config: { image_uri: string };
    };
    expect(deployment.source_revision_config.image_uri).toBe(GOOD);
    expect(deployment.secrets.map((x) => x.value)).toStrictEqual(['rotated']);
  });
});

describe('repository pushes and history pruning', () => {
  it('a push builds a new revision of the same ref at a new commit; a redeploy keeps the old commit', async () => {
    const s = await startSimulator({ revisionStepMs: 2 });
    sim = s;
    const { id, revisionId: first } = await createDeployment(s, repoHostCreate('pushed'));
    await activeIs(s, id, first);
    const firstSha = s.revisions(id)[0]?.source_revision_config.repo_commit_sha;
    s.configureRevisionAgent('c0ffee', { graph: { fail: true } });
    expect(s.pushToRepository(id, 'c0ffee')).toBe(true);
    const pushed = s.revisions(id)[0];
    expect(pushed?.source_revision_config).toMatchObject({ repo_ref: 'main', repo_commit_sha: 'c0ffee' });
    await activeIs(s, id, pushed?.id ?? '');
    expect(await runOutcome(s, id)).toBe('error');
    const back = latestOf((await call(s, 'POST', `/v2/deployments/${id}/revisions/${first}/redeploy`)).body);
    expect(s.revisions(id)[0]?.source_revision_config.repo_commit_sha).toBe(firstSha);
    await activeIs(s, id, back);
    expect(await runOutcome(s, id)).toBe('success');
  });

  it('a deployment that does not build on push answers 409 to a push', async () => {
    const s = await startSimulator({ revisionStepMs: 2 });
    sim = s;
    const { id } = await createDeployment(s, externalImageCreate('no-push'));
    expect((await call(s, 'POST', `/_simulator/deployments/${id}/push`, { body: {} })).status).toBe(409);
  });

  it('a pruned revision cannot be redeployed (404); the newest and the active one stay', async () => {
    const s = await startSimulator({ revisionStepMs: 2 });
    sim = s;
    const { id, revisionId: first } = await createDeployment(s, externalImageCreate('pruned'));
    await activeIs(s, id, first);
    for (const tag of ['2', '3']) {
      const answer = await call(s, 'PATCH', `/v2/deployments/${id}`, {
        body: { source_revision_config: { image_uri: `ghcr.io/acme/agent:${tag}` } },
      });
      await activeIs(s, id, latestOf(answer.body));
    }
    expect(
      (await call(s, 'POST', `/_simulator/deployments/${id}/prune-revisions`, { body: { keep: 1 } })).status,
    ).toBe(204);
    expect(s.revisions(id)).toHaveLength(1);
    const answer = await call(s, 'POST', `/v2/deployments/${id}/revisions/${first}/redeploy`);
    expect(answer.status).toBe(404);
  });

  it('the admin route configures a revision agent by source', async () => {
    const s = await startSimulator({ revisionStepMs: 2 });
    sim = s;
    const put = await call(s, 'PUT', '/_simulator/revision-agents', {
      body: { source: BAD, config: { graph: { fail: true } } },
    });
    expect(put.status).toBe(204);
    const { id, revisionId } = await createDeployment(
      s,
      externalImageCreate('admin-bad', { source_revision_config: { image_uri: BAD } }),
    );
    await activeIs(s, id, revisionId);
    expect(await runOutcome(s, id)).toBe('error');
  });
});
