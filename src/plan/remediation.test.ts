import { describe, expect, it } from 'vitest';
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../api/agentdeployment.ts';
import type { HistoryEntry } from '../api/remediation.ts';
import type { Decision } from '../reconcile/decide.ts';
import { type RemediationPlanInput, remediationPlan } from './remediation.ts';

const entry = (id: string, more: Partial<HistoryEntry> = {}): HistoryEntry => ({
  id,
  image: `img:${id}`,
  secretsDigest: 's',
  resourceSpecDigest: 'r',
  trigger: 'Spec',
  generation: 1,
  ...more,
});
const spec = {
  source: 'external_image',
  remediation: { strategy: 'Rollback' },
  verification: { assistantId: 'agent' },
} as AgentDeploymentSpec;
const none: Decision = { kind: 'none', secretsTakenAsCurrent: false };
const patchImage: Decision = {
  kind: 'patch',
  patch: {},
  changed: ['source_revision_config.image_uri'],
  createsRevision: true,
  secretsTakenAsCurrent: false,
};
const GOOD = entry('good', { outcome: 'Deployed', verification: 'Succeeded' });
const failedVerification: AgentDeploymentStatus = {
  latestRevisionId: 'bad',
  revisionStatus: 'DEPLOYED',
  lastGoodRevision: 'good',
  history: [entry('bad', { outcome: 'Deployed', verification: 'Failed', generation: 2 }), GOOD],
  verification: {
    revisionId: 'bad',
    failures: 1,
    last: { startedAt: '2026-11-25T17:00:00Z', completedAt: '2026-11-25T17:00:01Z', outcome: 'Failed' },
  },
} as AgentDeploymentStatus;
const rolledBack: AgentDeploymentStatus = {
  latestRevisionId: 'rb',
  history: [
    entry('rb', { trigger: 'Rollback', redeployOf: 'good', generation: 2, outcome: 'Deployed' }),
    entry('bad', { outcome: 'RolledBack', generation: 2 }),
    GOOD,
  ],
};
const input = (more: Partial<RemediationPlanInput>): RemediationPlanInput => ({
  spec,
  status: {},
  unchangedGeneration: undefined,
  generation: 3,
  decision: none,
  desired: { image: 'img:good', secretsDigest: 's', resourceSpecDigest: 'r' },
  observed: { id: 'dep', latest_revision_id: 'bad', active_revision_id: 'bad' },
  ...more,
});

describe('remediationPlan', () => {
  it.each<[string, Partial<RemediationPlanInput>, string | undefined, RegExp | undefined]>([
    [
      'a revert: would redeploy revision X (no build)',
      { decision: patchImage, status: failedVerification },
      'patch',
      /^would redeploy revision good \(no build\)/,
    ],
    [
      'a failed verification under Rollback: would roll back to revision X',
      { status: failedVerification },
      'patch',
      /^would roll back to revision good/,
    ],
    [
      'strategy None: nothing of its own',
      { spec: { ...spec, remediation: undefined }, status: failedVerification },
      undefined,
      undefined,
    ],
    [
      'rolled back for this very spec: nothing is sent',
      { status: rolledBack, unchangedGeneration: 2, decision: patchImage },
      'none',
      /rolled back to revision good/,
    ],
    [
      'rolled back, but the spec changes: the plan of the change',
      { status: rolledBack, decision: { ...patchImage, changed: ['source_config.resource_spec.cpu'] } },
      undefined,
      undefined,
    ],
    [
      'no deployment: nothing of its own',
      { observed: undefined, status: failedVerification },
      undefined,
      undefined,
    ],
  ])('%s', (_name, more, action, message) => {
    const entry = remediationPlan(input(more));
    expect(entry?.action).toBe(action);
    if (message) expect(entry?.message).toMatch(message);
    if (entry?.action === 'patch') expect(entry.redeployRevision).toBe('good');
  });
});
