import { describe, expect, it } from 'vitest';
import type { AgentDeploymentStatus } from '../../../api/agentdeployment.ts';
import type { HistoryEntry } from '../../../api/remediation.ts';
import { decidedBy, deploymentOf, facts, resolved } from '../facts.test-support.ts';
import type { AgentDeploymentFacts } from '../facts.ts';
import { rollback } from './rollback.ts';

type Revision = NonNullable<AgentDeploymentFacts['followed']>['revision'];
const entry = (id: string, more: Partial<HistoryEntry> = {}): HistoryEntry => ({
  id,
  image: `img:${id}`,
  secretsDigest: 's',
  resourceSpecDigest: 'r',
  trigger: 'Spec',
  generation: 1,
  ...more,
});
const GOOD = entry('good', { outcome: 'Deployed', verification: 'Succeeded' });
const ROLLBACK = { remediation: { strategy: 'Rollback' as const } };
const failedOn = (history: HistoryEntry[]): AgentDeploymentStatus => ({
  latestRevisionId: 'bad',
  lastGoodRevision: 'good',
  history,
});
const failedVerification: AgentDeploymentStatus = {
  ...failedOn([entry('bad', { outcome: 'Deployed', verification: 'Failed', generation: 2 }), GOOD]),
  verification: {
    revisionId: 'bad',
    specDigest: 'v',
    failures: 1,
    last: { startedAt: '2026-06-01T00:00:00Z', completedAt: '2026-06-01T00:00:01Z', outcome: 'Failed' },
  },
};
const FAILED: Revision = { id: 'bad', status: 'DEPLOY_FAILED', createdAt: '2026-06-01T00:00:00Z' };
const DEPLOYED: Revision = { id: 'bad', status: 'DEPLOYED' };

function following(over: Parameters<typeof facts>[0], revision: Revision, observeOnly = false) {
  const f = resolved(facts(over));
  if (observeOnly) f.observation = { drift: [], fields: [], digests: { secrets: '', unechoed: '' } };
  else f.inSync = true;
  f.followed = {
    deployment: deploymentOf(f, { latest_revision_id: 'bad', active_revision_id: 'bad' }),
    revision,
  };
  return f;
}

describe('gate rollback', () => {
  it('the revision not read yet: followRevision asks for it', () => {
    const f = resolved(facts({ spec: ROLLBACK }));
    f.inSync = true;
    expect(decidedBy(rollback, f)).toBeUndefined();
  });

  it.each<[string, Parameters<typeof facts>[0], Revision, object | undefined, boolean?]>([
    [
      'a failed deploy under Rollback: roll back to the last good revision',
      { spec: ROLLBACK, status: failedOn([entry('bad', { generation: 2, image: 'img:bad' }), GOOD]) },
      FAILED,
      { kind: 'rollback', from: 'bad', to: 'good' },
    ],
    [
      'a failed verification under Rollback: roll back',
      { spec: ROLLBACK, status: failedVerification },
      DEPLOYED,
      { kind: 'rollback', from: 'bad', to: 'good' },
    ],
    ['strategy None: followRevision decides', { status: failedVerification }, DEPLOYED, undefined],
    [
      'deployed, not failing verification: followRevision decides',
      { spec: ROLLBACK, status: failedOn([GOOD]) },
      DEPLOYED,
      undefined,
    ],
    [
      'no good revision yet: RevisionFailed, saying so',
      { spec: ROLLBACK, status: { latestRevisionId: 'bad', history: [entry('bad')] } },
      FAILED,
      { kind: 'stall', reason: 'RevisionFailed', message: expect.stringMatching(/none has deployed/) },
    ],
    [
      "the rollback's own revision failed: RollbackFailed, never a rollback of a rollback",
      {
        spec: ROLLBACK,
        status: failedOn([entry('bad', { trigger: 'Rollback', redeployOf: 'good' }), GOOD]),
      },
      FAILED,
      { kind: 'stall', reason: 'RollbackFailed' },
    ],
    [
      'observe-only: says what it would do, sends nothing',
      { spec: { ...ROLLBACK, managementPolicies: ['Observe'] }, status: failedOn([entry('bad'), GOOD]) },
      FAILED,
      {
        kind: 'stall',
        reason: 'RevisionFailed',
        message: expect.stringMatching(/observe-only: spec.remediation would roll back to revision good/),
      },
      true,
    ],
  ])('%s', (_, over, revision, expected, observeOnly) => {
    const verdict = decidedBy(rollback, following(over, revision, observeOnly));
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'rollback', ...expected });
  });
});
