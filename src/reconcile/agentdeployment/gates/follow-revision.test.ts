import { describe, expect, it } from 'vitest';
import { Annotation } from '../../../api/names.ts';
import { decidedBy, deploymentOf, facts, resolved } from '../facts.test-support.ts';
import type { AgentDeploymentFacts } from '../facts.ts';
import { followRevision } from './follow-revision.ts';

type Revision = NonNullable<AgentDeploymentFacts['followed']>['revision'];
const NOW = '2026-06-01T00:00:00Z';
const at = (minutesAgo: number) => new Date(Date.parse(NOW) - minutesAgo * 60_000).toISOString();

function following(over: Parameters<typeof facts>[0], revision: Revision) {
  const f = resolved(facts(over));
  f.inSync = true;
  f.followed = { deployment: deploymentOf(f), revision };
  return f;
}

describe('gate followRevision', () => {
  it('not in sync yet: the gates before it decide', () => {
    expect(decidedBy(followRevision, resolved(facts()))).toBeUndefined();
  });

  it('in sync, not read yet: read the revision', () => {
    const f = resolved(facts());
    f.inSync = true;
    expect(decidedBy(followRevision, f)).toEqual({ gate: 'followRevision', kind: 'read', read: 'revision' });
  });

  it.each<[string, Parameters<typeof facts>[0], Revision, object]>([
    ['no revision yet: in progress', {}, undefined, { kind: 'progressing' }],
    ['deployed, deployment READY: ready', {}, { id: 'r-1', status: 'DEPLOYED' }, { kind: 'ready' }],
    [
      'building: in progress, looked at again',
      {},
      { id: 'r-1', status: 'BUILDING', createdAt: at(1) },
      { kind: 'progressing' },
    ],
    [
      'failed: stalled',
      {},
      { id: 'r-1', status: 'BUILD_FAILED', createdAt: at(5) },
      { kind: 'stall', reason: 'RevisionFailed' },
    ],
    [
      'failed, a redeploy asked for by annotation: redeployed, the request handled',
      { annotations: { [Annotation.RedeployRequestedAt]: 'now' } },
      { id: 'r-1', status: 'BUILD_FAILED', createdAt: at(5) },
      { kind: 'redeploy', trigger: 'annotation', handled: 'now' },
    ],
    [
      'deployed, a redeploy asked for: nothing to redeploy, the request handled',
      { annotations: { [Annotation.RedeployRequestedAt]: 'now' } },
      { id: 'r-1', status: 'DEPLOYED' },
      { kind: 'ready', handled: 'now' },
    ],
    [
      'a rollback’s revision in progress: still the rollback',
      {
        status: {
          history: [
            {
              id: 'r-2',
              image: 'i',
              secretsDigest: 's',
              resourceSpecDigest: 'r',
              trigger: 'Rollback',
              generation: 1,
            },
          ],
        },
      },
      { id: 'r-2', status: 'DEPLOYING', createdAt: at(1) },
      { kind: 'progressing', rollingBack: true },
    ],
    [
      'in progress past spec.progressDeadline: stalled',
      { spec: { progressDeadline: '5m' } },
      { id: 'r-1', status: 'BUILDING', createdAt: at(10) },
      { kind: 'stall', reason: 'ProgressDeadlineExceeded' },
    ],
  ])('%s', (_, over, revision, expected) => {
    expect(decidedBy(followRevision, following(over, revision))).toMatchObject({
      gate: 'followRevision',
      ...expected,
    });
  });
});
