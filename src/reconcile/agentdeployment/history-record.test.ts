import { describe, expect, it } from 'vitest';
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import { type HistoryContext, observeRevision, observeVerified } from './history-record.ts';

const deployment = (revision: string, image: string) =>
  ({ id: 'd-1', latest_revision_id: revision, source_revision_config: { image_uri: image } }) as Deployment;
const context = (status: AgentDeploymentStatus, spec: Partial<AgentDeploymentSpec> = {}): HistoryContext => ({
  status,
  spec: { source: 'external_image', ...spec } as AgentDeploymentSpec,
  generation: 2,
  around: { secretsDigest: 's', resourceSpecDigest: 'r' },
  now: new Date('2026-06-01T00:00:00Z'),
});

describe('history as a gather keeps it', () => {
  it.each<[string, AgentDeploymentStatus, Partial<AgentDeploymentSpec>, string, object]>([
    [
      'the first revision an object sees is the spec’s; deployed, it is the last good one',
      {},
      {},
      'DEPLOYED',
      {
        lastGoodRevision: 'r-1',
        history: [{ id: 'r-1', trigger: 'Spec', image: 'img:1', outcome: 'Deployed' }],
      },
    ],
    [
      'a revision never seen after others is the platform’s',
      { history: [{ id: 'r-0', trigger: 'Spec', generation: 1 }] },
      {},
      'BUILDING',
      { history: [{ id: 'r-1', trigger: 'Platform' }, { id: 'r-0' }] },
    ],
    [
      'with spec.verification, deployed is not good until verified',
      {},
      { verification: { assistantId: 'agent' } as AgentDeploymentSpec['verification'] },
      'DEPLOYED',
      { history: [{ id: 'r-1', outcome: 'Deployed' }] },
    ],
  ])('%s', (_, status, spec, revisionStatus, expected) => {
    const ctx = context(structuredClone(status), spec);
    observeRevision(ctx, deployment('r-1', 'img:1'), revisionStatus);
    expect(ctx.status).toMatchObject(expected);
    if (spec.verification) {
      expect(ctx.status.lastGoodRevision).toBeUndefined();
      observeVerified(ctx, 'r-1', 'True');
      expect(ctx.status.lastGoodRevision).toBe('r-1');
    }
  });
});
