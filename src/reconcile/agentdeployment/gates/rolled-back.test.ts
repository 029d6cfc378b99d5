import { describe, expect, it } from 'vitest';
import type { AgentDeploymentStatus } from '../../../api/agentdeployment.ts';
import { Annotation } from '../../../api/names.ts';
import type { HistoryEntry } from '../../../api/remediation.ts';
import { decidedBy, deploymentOf, facts, resolved } from '../facts.test-support.ts';
import { rolledBack } from './rolled-back.ts';

const entry = (id: string, more: Partial<HistoryEntry> = {}): HistoryEntry => ({
  id,
  image: `img:${id}`,
  secretsDigest: 's',
  resourceSpecDigest: 'r',
  trigger: 'Spec',
  generation: 2,
  ...more,
});
const ROLLED_BACK: AgentDeploymentStatus = {
  latestRevisionId: 'rb',
  history: [
    entry('rb', { trigger: 'Rollback', redeployOf: 'good', outcome: 'Deployed' }),
    entry('bad', { outcome: 'RolledBack' }),
    entry('good', { generation: 1, outcome: 'Deployed' }),
  ],
};

function serving(over: Parameters<typeof facts>[0], status = 'DEPLOYED') {
  const f = resolved(facts({ generation: 2, status: ROLLED_BACK, ...over }));
  f.inSync = true;
  f.followed = {
    deployment: deploymentOf(f, { latest_revision_id: 'rb', active_revision_id: 'rb' }),
    revision: { id: 'rb', status, createdAt: '2026-06-01T00:00:00Z' },
  };
  return f;
}

describe('gate rolledBack', () => {
  it.each<[string, Parameters<typeof facts>[0], string, object | undefined]>([
    [
      'the rollback for this spec serves: RolledBack, naming both revisions',
      {},
      'DEPLOYED',
      {
        kind: 'ready',
        rolledBack: true,
        message: expect.stringMatching(/revision bad failed: rolled back to revision good/),
      },
    ],
    ['still deploying: followRevision decides', {}, 'DEPLOYING', undefined],
    ['the spec changed since: not held', { generation: 3 }, 'DEPLOYED', undefined],
    [
      'a person asked: not held',
      { annotations: { [Annotation.ReconcileRequestedAt]: 'now' }, reconcileRequested: true },
      'DEPLOYED',
      undefined,
    ],
  ])('%s', (_, over, status, expected) => {
    const verdict = decidedBy(rolledBack, serving(over, status));
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'rolledBack', ...expected });
  });
});
