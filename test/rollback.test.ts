/**
 * Safe rollouts end to end (issue 33): the real API server, the operator in-process, the simulator whose
 * agents fail by revision (their image or commit). A bad image rolled back and verified again, then no
 * write; a git revert applied by one redeploy and no PATCH; the odd cases. The time from the failure
 * being known to Verified again is measured from the history's own timestamps and printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import type { ControlPlaneClient } from '../src/controlplane/client.ts';
import type { PlanKind } from '../src/plan/model.ts';
import { planObjects } from '../src/plan/plan.ts';
import { repoHost } from './support/agd-objects.ts';
import {
  condition,
  createAgd,
  eventually,
  getAgd,
  type Harness,
  listEvents,
  mergePatchAgd,
  sleep,
  startHarness,
} from './support/harness.ts';
import { planWorld } from './support/plan-world.ts';

// repo_host: the simulator gives those deployments a URL to verify. Tags, so a revert may redeploy.
const GOOD = 'refs/tags/v1';
const GOOD2 = 'refs/tags/v2';
const BAD = 'refs/tags/bad';
const at = (repoRef: string) => ({ sourceRevisionConfig: { repoRef, graphConfigPath: 'langgraph.json' } });
const agent = (name: string, spec: Record<string, unknown> = {}) => repoHost(name, { ...at(GOOD), ...spec });
const VERIFY = { assistantId: 'agent', webhook: false, timeout: '10s' };
const ROLLBACK = { strategy: 'Rollback' };
/** The harness's POLL_INTERVAL. */
const POLL_MS = 1_000;

const DIGEST_KEY = 'rollback-digest-key';
let h: Harness;
const clients: ControlPlaneClient[] = [];

beforeAll(async () => {
  h = await startHarness('rollback', {
    env: { VERIFICATION_BACKOFF: '300ms', SECRETS_DIGEST_KEY: DIGEST_KEY },
  });
  h.sim.configureRevisionAgent(BAD, { graph: { fail: true, errorMessage: 'the bad image' } });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await h?.stop();
});

const deploymentOf = (name: string) => {
  const d = h.sim.deployments().find((x) => x.name === name);
  if (!d) throw new Error(`no deployment ${name}`);
  return d;
};

/** Control-plane writes for one deployment (agent-server runs are not writes to the platform). */
const writesOf = (name: string) => {
  const d = h.sim.deployments().find((x) => x.name === name);
  return h.sim
    .requests()
    .filter((r) => r.method !== 'GET' && r.path.startsWith('/v2/deployments'))
    .filter(
      (r) => (d ? r.path.includes(d.id) : false) || (r.method === 'POST' && r.route === '/v2/deployments'),
    )
    .filter((r) => r.status > 0)
    .map((r) => `${r.method} ${r.route}`);
};
const patchesOf = (name: string) => writesOf(name).filter((w) => w.startsWith('PATCH'));
const redeploysOf = (name: string) => writesOf(name).filter((w) => w.endsWith('/redeploy'));

async function until(
  name: string,
  check: (obj: AgentDeployment) => boolean,
  what: string,
  timeoutMs = 60_000,
) {
  return eventually(
    async () => {
      const obj = await getAgd(h, name);
      if (check(obj)) return obj;
      // On a timeout, what the object last said.
      const ready = condition(obj, 'Ready');
      throw new Error(
        JSON.stringify({
          generation: [obj.metadata.generation, obj.status?.observedGeneration],
          ready: [ready?.status, ready?.reason, ready?.message],
          history: obj.status?.history?.slice(0, 3).map((e) => [e.trigger, e.repoRef, e.status, e.outcome]),
        }),
      );
    },
    `${name}: ${what}`,
    timeoutMs,
  );
}

const current = (obj: AgentDeployment) => obj.status?.observedGeneration === obj.metadata.generation;
const isReady = (obj: AgentDeployment) => current(obj) && condition(obj, 'Ready')?.status === 'True';
const stalledWith = (reason: string) => (obj: AgentDeployment) =>
  current(obj) &&
  condition(obj, 'Stalled')?.status === 'True' &&
  condition(obj, 'Stalled')?.reason === reason;
const readyOn = (revision: string | undefined) => (obj: AgentDeployment) =>
  isReady(obj) && obj.status?.latestRevisionId !== revision;

/** `kubectl agd plan` of the live object (with `spec` merged in), against the run's cluster and simulator. */
const planOf = async (name: string, spec?: Record<string, unknown>) => {
  const live = await getAgd(h, name);
  const input = {
    ...live,
    metadata: { ...live.metadata, managedFields: undefined },
    spec: { ...live.spec, ...spec },
  };
  const [entry] = await planObjects(
    [input as typeof input & { kind: PlanKind }],
    h.ns,
    planWorld(h, DIGEST_KEY, clients),
  );
  return entry;
};

/** No control-plane write for several poll intervals. */
async function expectNoWritesFor(name: string, intervals: number) {
  const before = writesOf(name).length;
  await sleep(intervals * POLL_MS + 500);
  expect(writesOf(name).slice(before)).toStrictEqual([]);
}

describe('a bad image that deploys but fails verification', () => {
  it('is rolled back; the good revision serves and verifies again; then nothing is sent', async () => {
    await createAgd(h, agent('bad-image', { verification: VERIFY, remediation: ROLLBACK }));
    const good = await until('bad-image', isReady, 'Ready on the good image');
    const goodRevision = good.status?.latestRevisionId;
    expect(good.status?.lastGoodRevision).toBe(goodRevision);

    await mergePatchAgd(h, 'bad-image', { spec: at(BAD) });
    const rolled = await until('bad-image', stalledWith('RolledBack'), 'Stalled RolledBack');

    // Ready False, Stalled True: kstatus Failed, Argo CD Degraded; the message names both revisions.
    const history = rolled.status?.history ?? [];
    const [rollback, failed] = history;
    expect(rollback).toMatchObject({
      trigger: 'Rollback',
      redeployOf: goodRevision,
      repoRef: GOOD,
      outcome: 'Deployed',
      verification: 'Succeeded',
    });
    expect(failed).toMatchObject({ repoRef: BAD, outcome: 'RolledBack', verification: 'Failed' });
    expect(condition(rolled, 'Ready')).toMatchObject({ status: 'False', reason: 'RolledBack' });
    expect(condition(rolled, 'Verified')?.status).toBe('True');
    const message = condition(rolled, 'Stalled')?.message ?? '';
    expect(message).toContain(`revision ${failed?.id} failed`);
    expect(message).toContain(`rolled back to revision ${goodRevision}`);
    expect(rolled.status?.lastGoodRevision).toBe(rollback?.id);
    expect(deploymentOf('bad-image').active_revision_id).toBe(rollback?.id);
    expect(deploymentOf('bad-image').source_revision_config.repo_ref).toBe(GOOD);
    expect(redeploysOf('bad-image')).toHaveLength(1);
    const events = await listEvents(h, 'bad-image');
    expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(['RollingBack', 'RolledBack']));

    // From the failure being known to Verified again (the history's own times).
    const knownAt = Date.parse(failed?.verifiedAt ?? '');
    const verifiedAt = Date.parse(rollback?.verifiedAt ?? '');
    console.log(
      `[rollback] failure known -> Verified again: ${verifiedAt - knownAt} ms (verification timeout 10s, poll interval ${POLL_MS} ms)`,
    );
    expect(verifiedAt).toBeGreaterThan(knownAt);

    // No loop: no PATCH back to the bad image, no retry, no second rollback.
    await expectNoWritesFor('bad-image', 4);
    const later = await getAgd(h, 'bad-image');
    expect(condition(later, 'Stalled')?.reason).toBe('RolledBack');
  });

  it('a spec change ends the rolled-back state: the new spec is applied', async () => {
    const before = await getAgd(h, 'bad-image');
    await mergePatchAgd(h, 'bad-image', { spec: at(GOOD2) });
    const after = await until(
      'bad-image',
      readyOn(before.status?.latestRevisionId),
      'Ready on the fixed image',
    );
    expect(after.status?.history?.[0]).toMatchObject({
      trigger: 'Spec',
      repoRef: GOOD2,
      verification: 'Succeeded',
    });
    expect(condition(after, 'Stalled')).toBeUndefined();
  });

  it('a person asking (reconcile-requested-at) applies the failed spec again, and it is rolled back once more', async () => {
    await createAgd(h, agent('asked', { verification: VERIFY, remediation: ROLLBACK }));
    await until('asked', isReady, 'Ready');
    await mergePatchAgd(h, 'asked', { spec: at(BAD) });
    await until('asked', stalledWith('RolledBack'), 'Stalled RolledBack');
    const patches = patchesOf('asked').length;
    await mergePatchAgd(h, 'asked', {
      metadata: { annotations: { 'deploy.agents.dev/reconcile-requested-at': 'try-again-1' } },
    });
    await until(
      'asked',
      (o) => (o.status?.history?.filter((e) => e.trigger === 'Rollback').length ?? 0) === 2,
      'a second rollback',
    );
    expect(patchesOf('asked').length).toBe(patches + 1);
    await until('asked', stalledWith('RolledBack'), 'Stalled RolledBack again');
    await expectNoWritesFor('asked', 3);
  });
});

describe('a revert in git', () => {
  it('costs one redeploy and no PATCH (no build)', async () => {
    await createAgd(h, agent('revert', { verification: VERIFY }));
    const first = await until('revert', isReady, 'Ready on image 1');
    await mergePatchAgd(h, 'revert', { spec: at(GOOD2) });
    const second = await until('revert', readyOn(first.status?.latestRevisionId), 'Ready on image 2');
    const patches = patchesOf('revert').length;
    const redeploys = redeploysOf('revert').length;

    await mergePatchAgd(h, 'revert', { spec: at(GOOD) });
    const reverted = await until(
      'revert',
      readyOn(second.status?.latestRevisionId),
      'Ready after the revert',
    );
    expect(patchesOf('revert').length).toBe(patches);
    expect(redeploysOf('revert').length).toBe(redeploys + 1);
    expect(reverted.status?.history?.[0]).toMatchObject({
      trigger: 'Revert',
      redeployOf: first.status?.latestRevisionId,
      repoRef: GOOD,
    });
    expect((await listEvents(h, 'revert')).map((e) => e.reason)).toContain('Reverted');
  });

  it('falls back to the PATCH when the platform no longer has the revision (404)', async () => {
    await createAgd(h, agent('revert-pruned'));
    const first = await until('revert-pruned', isReady, 'Ready on image 1');
    await mergePatchAgd(h, 'revert-pruned', { spec: at(GOOD2) });
    const second = await until('revert-pruned', readyOn(first.status?.latestRevisionId), 'Ready on image 2');
    h.sim.pruneRevisions(deploymentOf('revert-pruned').id, 1);
    const patches = patchesOf('revert-pruned').length;

    await mergePatchAgd(h, 'revert-pruned', { spec: at(GOOD) });
    const reverted = await until(
      'revert-pruned',
      readyOn(second.status?.latestRevisionId),
      'Ready after the revert',
    );
    expect(patchesOf('revert-pruned').length).toBe(patches + 1);
    expect(reverted.status?.history?.[0]).toMatchObject({ trigger: 'Spec', repoRef: GOOD });
    expect((await listEvents(h, 'revert-pruned')).map((e) => e.reason)).toContain('RevertFellBack');
  });
});

describe('the odd cases', () => {
  it('no good revision yet: nothing to roll back to, and the object says so', async () => {
    await createAgd(
      h,
      agent('first-bad', {
        verification: VERIFY,
        remediation: ROLLBACK,
        ...at(BAD),
      }),
    );
    const obj = await until(
      'first-bad',
      (o) => condition(o, 'Ready')?.reason === 'VerificationFailed',
      'VerificationFailed',
    );
    expect(condition(obj, 'Ready')?.message).toContain('no revision to roll back to');
    expect(redeploysOf('first-bad')).toStrictEqual([]);
    expect(obj.status?.lastGoodRevision).toBeUndefined();
  });

  it('the good revision fails on redeploy: RollbackFailed, never a retry (even with spec.retry) nor a second rollback', async () => {
    await createAgd(
      h,
      agent('rollback-fails', {
        verification: VERIFY,
        remediation: ROLLBACK,
        retry: { limit: 2, backoff: '1s' },
      }),
    );
    await until('rollback-fails', isReady, 'Ready');
    // The rollback's redeploy will fail to deploy.
    h.sim.configureRevisionAgent('refs/tags/bad-2', { graph: { fail: true } });
    await mergePatchAgd(h, 'rollback-fails', {
      spec: { ...at('refs/tags/bad-2') },
    });
    // Once the bad revision exists, the next one (the rollback's redeploy) fails to deploy.
    await eventually(
      async () => deploymentOf('rollback-fails').source_revision_config.repo_ref === 'refs/tags/bad-2',
      'the bad revision made',
    );
    h.sim.failRevisions({ deploymentName: 'rollback-fails', at: 'DEPLOY' });
    const obj = await until('rollback-fails', stalledWith('RollbackFailed'), 'Stalled RollbackFailed');
    expect(condition(obj, 'Stalled')?.message).toContain('never a rollback of a rollback');
    expect(obj.status?.history?.[0]).toMatchObject({ trigger: 'Rollback', status: 'DEPLOY_FAILED' });
    expect(redeploysOf('rollback-fails')).toHaveLength(1);
    await expectNoWritesFor('rollback-fails', 3);
  });

  it('the spec changes during a rollback: the new spec wins', async () => {
    await createAgd(h, agent('mid-rollback', { verification: VERIFY, remediation: ROLLBACK }));
    const good = await until('mid-rollback', isReady, 'Ready');
    // The rollback's revision (the good ref again) will stay DEPLOYING. Scripted by its ref before the
    // bad revision exists: scripted after, a loaded machine let the rollback come first (CI, twice).
    h.sim.scriptRevisions({ deploymentName: 'mid-rollback', repoRef: GOOD, hold: 'DEPLOYING' });
    await mergePatchAgd(h, 'mid-rollback', { spec: at(BAD) });
    // The rollback's revision followed (held DEPLOYING): RollingBack all along, not only in the pass
    // that redeployed (a status that said so for a moment was missed on a loaded machine).
    const rolling = await until(
      'mid-rollback',
      (o) => o.status?.history?.[0]?.trigger === 'Rollback' && o.status.history[0].status === 'DEPLOYING',
      'the rollback’s revision deploying',
    );
    expect(condition(rolling, 'Ready')?.reason).toBe('RollingBack');
    // One program: the plan says so too.
    expect(await planOf('mid-rollback')).toMatchObject({ action: 'none', reason: 'RollingBack' });
    await mergePatchAgd(h, 'mid-rollback', { spec: at(GOOD2) });
    const obj = await until(
      'mid-rollback',
      (o) => isReady(o) && o.status?.history?.[0]?.repoRef === GOOD2,
      'Ready on the new spec',
    );
    expect(obj.status?.history?.map((e) => [e.trigger, e.outcome])).toEqual(
      expect.arrayContaining([
        ['Spec', 'Deployed'],
        ['Rollback', 'Superseded'],
      ]),
    );
    expect(good.status?.latestRevisionId).not.toBe(obj.status?.latestRevisionId);
  });

  it('secrets rotated since the good revision: the rollback restores the source and keeps the current secrets', async () => {
    const withToken = (value: string) => [{ name: 'API_TOKEN', value }];
    await createAgd(
      h,
      agent('rotated', {
        verification: VERIFY,
        remediation: ROLLBACK,
        secrets: withToken('old-value'),
      }),
    );
    await until('rotated', isReady, 'Ready');
    await mergePatchAgd(h, 'rotated', {
      spec: { ...at(BAD), secrets: withToken('rotated-value') },
    });
    const obj = await until('rotated', stalledWith('RolledBack'), 'Stalled RolledBack');
    const deployment = deploymentOf('rotated') as unknown as { secrets: { value: string }[] };
    expect(deployment.secrets.map((s) => s.value)).toStrictEqual(['rotated-value']);
    const events = await listEvents(h, 'rotated');
    expect(events.find((e) => e.reason === 'RollingBack')?.message).toContain('keeps its current secrets');
    expect(JSON.stringify(obj)).not.toContain('old-value');
  });

  it('the platform pruned the good revision: RollbackFailed, nothing more sent', async () => {
    await createAgd(h, agent('pruned', { verification: VERIFY, remediation: ROLLBACK }));
    await until('pruned', isReady, 'Ready');
    // A slow failing run leaves time to prune once the bad revision is active.
    h.sim.configureRevisionAgent('refs/tags/slow-bad', {
      graph: { fail: true, delayMs: 1_500 },
    });
    await mergePatchAgd(h, 'pruned', {
      spec: { ...at('refs/tags/slow-bad') },
    });
    await eventually(
      async () =>
        h.sim.deployments().find((d) => d.name === 'pruned')?.source_revision_config.repo_ref ===
          'refs/tags/slow-bad' &&
        deploymentOf('pruned').active_revision_id === deploymentOf('pruned').latest_revision_id,
      'the slow bad revision active',
    );
    h.sim.pruneRevisions(deploymentOf('pruned').id, 1);
    const obj = await until('pruned', stalledWith('RollbackFailed'), 'Stalled RollbackFailed');
    expect(condition(obj, 'Stalled')?.message).toMatch(/no longer (has revision|on the platform)/);
    expect(redeploysOf('pruned')).toHaveLength(1);
    // Tried once: the revision is marked pruned, never redeployed again, and the object says why.
    await expectNoWritesFor('pruned', 3);
    const later = await getAgd(h, 'pruned');
    expect(later.status?.history?.find((e) => e.pruned)?.outcome).toBe('Deployed');
    expect(later.status?.lastGoodRevision).toBeUndefined();
    expect(condition(later, 'Stalled')?.message).toContain('is no longer on the platform');
  });

  it('build on push after a rollback: the pushed revision is followed and ends the rolled-back state', async () => {
    await createAgd(
      h,
      repoHost('pushed', {
        verification: VERIFY,
        remediation: ROLLBACK,
        sourceConfig: {
          integrationId: '6f1f7a4e-8d7b-4c43-9a57-2f6a9b1c0d11',
          repoUrl: 'https://git.example.com/team/agent',
          deploymentType: 'dev',
          buildOnPush: true,
        },
      }),
    );
    await until('pushed', isReady, 'Ready');
    h.sim.configureRevisionAgent('badc0mmit', { graph: { fail: true } });
    expect(h.sim.pushToRepository(deploymentOf('pushed').id, 'badc0mmit')).toBe(true);
    const rolled = await until('pushed', stalledWith('RolledBack'), 'Stalled RolledBack');
    expect(rolled.status?.history?.[1]).toMatchObject({
      trigger: 'Platform',
      repoCommitSha: 'badc0mmit',
      outcome: 'RolledBack',
    });
    const patches = patchesOf('pushed').length;

    expect(h.sim.pushToRepository(deploymentOf('pushed').id, 'g00dc0mmit')).toBe(true);
    const fixed = await until(
      'pushed',
      (o) => isReady(o) && o.status?.history?.[0]?.repoCommitSha === 'g00dc0mmit',
      'Ready on the pushed fix',
    );
    expect(fixed.status?.lastGoodRevision).toBe(fixed.status?.history?.[0]?.id);
    expect(patchesOf('pushed').length).toBe(patches);
  });

  it('without spec.remediation nothing is rolled back (None is the default)', async () => {
    await createAgd(h, agent('no-remediation', { verification: VERIFY }));
    await until('no-remediation', isReady, 'Ready');
    await mergePatchAgd(h, 'no-remediation', { spec: at(BAD) });
    const obj = await until(
      'no-remediation',
      (o) => current(o) && (o.status?.verification?.failures ?? 0) >= 2,
      'two failed verifications',
    );
    expect(condition(obj, 'Ready')?.reason).toBe('VerificationFailed');
    expect(redeploysOf('no-remediation')).toStrictEqual([]);
  });
});

describe('spec.retry first, then one rollback', () => {
  it('a failed deploy while a bad revision serves: the retries, then the rollback', async () => {
    await createAgd(
      h,
      agent('retry-first', {
        verification: VERIFY,
        // A failed verification alone never rolls back here: the bad revision keeps serving.
        remediation: { strategy: 'Rollback', verificationFailures: 0 },
        retry: { limit: 1, backoff: '1s' },
      }),
    );
    const good = await until('retry-first', isReady, 'Ready');
    await mergePatchAgd(h, 'retry-first', { spec: at(BAD) });
    await until(
      'retry-first',
      (o) => condition(o, 'Verified')?.status === 'False' && current(o),
      'the bad revision serving',
    );
    // The next revision and its retry fail to deploy.
    h.sim.failRevisions({ deploymentName: 'retry-first', at: 'DEPLOY', times: 2 });
    await mergePatchAgd(h, 'retry-first', { spec: at('refs/tags/bad-deploy') });
    const obj = await until('retry-first', stalledWith('RolledBack'), 'Stalled RolledBack');
    expect(obj.status?.history?.slice(0, 3).map((e) => [e.trigger, e.outcome])).toStrictEqual([
      ['Rollback', 'Deployed'],
      ['Retry', 'RolledBack'],
      ['Spec', 'Failed'],
    ]);
    expect(obj.status?.history?.[0]?.redeployOf).toBe(good.status?.latestRevisionId);
    expect(deploymentOf('retry-first').source_revision_config.repo_ref).toBe(GOOD);
    await expectNoWritesFor('retry-first', 3);
  });
});

describe('kubectl agd plan', () => {
  it('a revert: would redeploy revision X (no build)', async () => {
    await createAgd(h, agent('plan-revert'));
    const first = await until('plan-revert', isReady, 'Ready on v1');
    await mergePatchAgd(h, 'plan-revert', { spec: at(GOOD2) });
    await until('plan-revert', readyOn(first.status?.latestRevisionId), 'Ready on v2');
    const entry = await planOf('plan-revert', at(GOOD));
    expect(entry?.message).toMatch(
      new RegExp(`^would redeploy revision ${first.status?.latestRevisionId} \\(no build\\)`),
    );
    expect(entry?.redeployRevision).toBe(first.status?.latestRevisionId);
  });

  it('rolled back under the same spec: nothing is sent', async () => {
    const entry = await planOf('asked');
    expect(entry).toMatchObject({ action: 'none', reason: 'RolledBack' });
  });

  it('a failed verification, with spec.remediation Rollback added: would roll back to revision X', async () => {
    const live = await getAgd(h, 'no-remediation');
    const good = live.status?.lastGoodRevision;
    expect(good).toBeDefined();
    const entry = await planOf('no-remediation', { remediation: ROLLBACK });
    expect(entry?.message).toMatch(new RegExp(`^would roll back to revision ${good}`));
  });
});
