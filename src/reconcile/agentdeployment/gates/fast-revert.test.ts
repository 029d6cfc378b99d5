import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../../api/remediation.ts';
import { decidedBy, deploymentOf, facts, resolved } from '../facts.test-support.ts';
import type { AgentDeploymentFacts } from '../facts.ts';
import { desiredConfig } from '../history.ts';
import { fastRevert } from './fast-revert.ts';

const OLD = 'registry.example.com/agent:0';

/** The spec (generation 3) asks for agent:1; the deployment runs agent:0 (revision r-2). */
function reverting(history: (f: AgentDeploymentFacts) => HistoryEntry[], tag = 'agent:1') {
  const f = resolved(
    facts({
      generation: 3,
      spec: { sourceRevisionConfig: { imageUri: `registry.example.com/${tag}` } },
      status: { deploymentId: 'd-1' },
    }),
  );
  if (!f.desired?.ok) throw new Error('no desired state');
  f.object.status.appliedConfigDigest = f.desired.digests.unechoed;
  f.recorded = deploymentOf(f, {
    source_revision_config: { image_uri: OLD },
    latest_revision_id: 'r-2',
    active_revision_id: 'r-2',
  });
  f.object.status.history = history(f);
  return f;
}
const was = (f: AgentDeploymentFacts, id: string, more: Partial<HistoryEntry>): HistoryEntry => {
  if (!f.desired?.ok) throw new Error('no desired state');
  const config = desiredConfig(f.desired.request, f.desired.digests.secrets);
  return { id, trigger: 'Spec', generation: 1, outcome: 'Deployed', ...config, ...more };
};
const NEWER = {
  id: 'r-2',
  image: OLD,
  secretsDigest: '',
  resourceSpecDigest: '',
  trigger: 'Spec',
  generation: 2,
} as HistoryEntry;

describe('gate fastRevert', () => {
  it.each<[string, (f: AgentDeploymentFacts) => HistoryEntry[], object | undefined]>([
    [
      'the spec equals a revision that deployed: redeploy it, the PATCH kept for a 404',
      (f) => [
        {
          ...NEWER,
          secretsDigest: was(f, 'x', {}).secretsDigest,
          resourceSpecDigest: was(f, 'x', {}).resourceSpecDigest,
        },
        was(f, 'r-1', {}),
      ],
      {
        kind: 'revert',
        target: 'r-1',
        patch: { kind: 'patch', changed: ['source_revision_config.image_uri'] },
      },
    ],
    ['no such revision in the history: converge PATCHes', () => [NEWER], undefined],
    [
      'that revision failed verification: converge PATCHes',
      (f) => [NEWER, was(f, 'r-1', { verification: 'Failed' })],
      undefined,
    ],
    [
      'that revision is gone from the platform: converge PATCHes',
      (f) => [NEWER, was(f, 'r-1', { pruned: true })],
      undefined,
    ],
  ])('%s', (_, history, expected) => {
    const verdict = decidedBy(fastRevert, reverting(history));
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'fastRevert', ...expected });
  });
});
