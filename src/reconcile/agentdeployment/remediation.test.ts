import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../api/remediation.ts';
import {
  currentRollback,
  holdsAfterRollback,
  type RemediationFacts,
  remediationDecisionOf,
  revertTarget,
  rolledBackMessage,
  specAfterHistory,
} from './remediation.ts';

const entry = (id: string, more: Partial<HistoryEntry> = {}): HistoryEntry => ({
  id,
  image: `img:${id}`,
  secretsDigest: 's1',
  resourceSpecDigest: 'r1',
  trigger: 'Spec',
  generation: 1,
  ...more,
});
const GOOD = entry('good', { outcome: 'Deployed', verification: 'Succeeded' });
const BAD = entry('bad', { outcome: 'Deployed', verification: 'Failed', generation: 2 });
const facts = (more: Partial<RemediationFacts> = {}): RemediationFacts => ({
  strategy: 'Rollback',
  verificationFailures: undefined,
  latest: { id: 'bad', failure: 'verification', failures: 1 },
  history: [BAD, GOOD],
  lastGoodRevision: 'good',
  activeRevisionId: 'bad',
  ...more,
});

describe('remediationDecisionOf', () => {
  it.each<[string, Partial<RemediationFacts>, string, RegExp?]>([
    [
      'a failed verification rolls back to the last good revision',
      {},
      'rollback',
      /rolling back to revision good/,
    ],
    ['strategy absent: nothing', { strategy: undefined }, 'none'],
    ['strategy None: nothing', { strategy: 'None' }, 'none'],
    ['fewer failed verifications than asked: not yet', { verificationFailures: 2 }, 'none'],
    [
      'verificationFailures 0: a failed verification never rolls back',
      { verificationFailures: 0, latest: { id: 'bad', failure: 'verification', failures: 9 } },
      'none',
    ],
    [
      'no good revision yet: nothing, and why',
      { lastGoodRevision: undefined, history: [BAD] },
      'none',
      /no revision to roll back to/,
    ],
    [
      'the failed revision is the last good one',
      { lastGoodRevision: 'bad' },
      'none',
      /no revision to roll back to/,
    ],
    [
      'a failed deploy while the good revision still serves: nothing to roll back',
      { latest: { id: 'bad', failure: 'deploy', status: 'DEPLOY_FAILED' }, activeRevisionId: 'good' },
      'none',
      /still serves/,
    ],
    [
      'a failed deploy while a bad revision serves: rollback',
      {
        latest: { id: 'worse', failure: 'deploy', status: 'DEPLOY_FAILED' },
        history: [entry('worse', { outcome: 'Failed' }), BAD, GOOD],
      },
      'rollback',
      /worse ended in DEPLOY_FAILED: rolling back to revision good/,
    ],
    [
      'the same source: the change is in the secrets, which a redeploy does not restore',
      { history: [{ ...BAD, image: 'img:good', secretsDigest: 's2' }, GOOD] },
      'none',
      /same source/,
    ],
    [
      'secrets rotated and the image changed: rollback of the source, the current secrets kept',
      { history: [{ ...BAD, secretsDigest: 's2' }, GOOD] },
      'rollback',
      /keeps its current secrets/,
    ],
    [
      'the last good revision is gone from the platform (a redeploy answered 404): nothing more is tried',
      { lastGoodRevision: undefined, history: [BAD, { ...GOOD, pruned: true }] },
      'rollbackFailed',
      /no longer on the platform/,
    ],
    [
      'the failed revision is a rollback: no rollback of a rollback',
      {
        latest: { id: 'rb', failure: 'verification', failures: 1 },
        history: [entry('rb', { trigger: 'Rollback', redeployOf: 'good' }), BAD, GOOD],
      },
      'rollbackFailed',
      /never a rollback of a rollback/,
    ],
    [
      'a rollback that fails is reported even with strategy None (set since)',
      {
        strategy: 'None',
        latest: { id: 'rb', failure: 'deploy', status: 'DEPLOY_FAILED' },
        history: [entry('rb', { trigger: 'Rollback', redeployOf: 'good' }), GOOD],
      },
      'rollbackFailed',
    ],
  ])('%s', (_name, more, action, message) => {
    const decision = remediationDecisionOf(facts(more));
    expect(decision.action).toBe(action);
    const text = decision.action === 'none' ? (decision.why ?? '') : decision.message;
    if (message) expect(text).toMatch(message);
  });
});

describe('after a rollback', () => {
  const rolledBack = [
    entry('rb', { trigger: 'Rollback', redeployOf: 'good', generation: 2, outcome: 'Deployed' }),
    { ...BAD, outcome: 'RolledBack' as const },
    GOOD,
  ];

  it.each([
    ['the rollback of this generation holds every write', rolledBack, 2, false, true],
    ['a person asked: no hold', rolledBack, 2, true, false],
    ['the spec changed since: no hold', rolledBack, 3, false, false],
    [
      'a revision made since (build on push): no hold',
      [entry('push', { trigger: 'Platform' }), ...rolledBack],
      2,
      false,
      false,
    ],
    ['no rollback: no hold', [BAD, GOOD], 2, false, false],
  ])('%s', (_name, history, generation, asked, holds) => {
    expect(holdsAfterRollback(history, generation, asked)).toBe(holds);
  });

  it('the report names both revisions and says what ends it', () => {
    expect(currentRollback(rolledBack)?.failed).toBe('bad');
    expect(rolledBackMessage(rolledBack, true)).toMatch(
      /revision bad failed: rolled back to revision good, redeployed as revision rb, which serves and is verified.*reconcile-requested-at/,
    );
    expect(rolledBackMessage([BAD, GOOD], true)).toBeUndefined();
  });
});

describe('specAfterHistory', () => {
  it.each<[string, HistoryEntry[], number, boolean]>([
    ['no history: nothing to revert to', [], 5, false],
    ['the spec of the latest revision (a settled object)', [entry('a', { generation: 3 })], 3, false],
    ['an older spec than the latest revision', [entry('a', { generation: 4 })], 3, false],
    ['a spec after the latest revision', [entry('a', { generation: 3 })], 4, true],
    ['a revision without a generation counts as 0', [entry('a', { generation: undefined })], 1, true],
  ])('%s', (_name, history, generation, want) => {
    expect(specAfterHistory(history, generation)).toBe(want);
  });
});

describe('revertTarget', () => {
  const desired = { image: 'img:good', secretsDigest: 's1', resourceSpecDigest: 'r1' };
  const base = {
    history: [BAD, GOOD],
    desired,
    changed: ['source_revision_config.image_uri'],
    createsRevision: true,
    latestRevisionId: 'bad',
    generation: 3,
  };
  it.each<[string, Partial<typeof base>, string | undefined]>([
    ['a revert to a revision that deployed and verified: redeploy it', {}, 'good'],
    ['other secrets since: PATCH', { desired: { ...desired, secretsDigest: 's2' } }, undefined],
    [
      'a resource change besides: PATCH',
      { changed: ['source_revision_config.image_uri', 'source_config.resource_spec.cpu'] },
      undefined,
    ],
    ['no revision would be made: PATCH', { createsRevision: false }, undefined],
    ['a configuration never deployed: PATCH', { desired: { ...desired, image: 'img:new' } }, undefined],
    [
      'a revision that failed verification is not reverted to',
      { desired: { ...desired, image: 'img:bad' }, latestRevisionId: 'x' },
      undefined,
    ],
    ['a failed revision is not reverted to', { history: [{ ...GOOD, outcome: 'Failed' }] }, undefined],
    ['the same spec as the latest revision (drift): PATCH', { generation: 2 }, undefined],
  ])('%s', (_name, more, want) => {
    expect(revertTarget({ ...base, ...more })?.id).toBe(want);
  });

  it.each([
    ['refs/tags/v1', 'r'],
    ['0123456789abcdef0123456789abcdef01234567', 'r'],
    ['main', undefined],
  ])('repo ref %s: a branch is rebuilt, a tag or a commit redeployed', (ref, want) => {
    const repo = entry('r', { image: undefined, repoRef: ref, repoCommitSha: 'c', outcome: 'Deployed' });
    expect(
      revertTarget({
        ...base,
        history: [repo],
        desired: { repoRef: ref, secretsDigest: 's1', resourceSpecDigest: 'r1' },
        changed: ['source_revision_config.repo_ref'],
      })?.id,
    ).toBe(want);
  });
});
