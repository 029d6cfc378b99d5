import { describe, expect, it } from 'vitest';
import { decidedBy, deploymentOf, facts, resolved } from '../facts.test-support.ts';
import type { AgentDeploymentFacts } from '../facts.ts';
import { converge } from './converge.ts';

const recorded = { status: { deploymentId: 'd-1' } };

describe('gate converge', () => {
  it.each<[string, Parameters<typeof facts>[0], (f: AgentDeploymentFacts) => void, object]>([
    ['none there: create', {}, (f) => (f.byName = {}), { kind: 'create' }],
    [
      'equal: in sync, its revision followed next',
      recorded,
      (f) => (f.recorded = deploymentOf(f)),
      { kind: 'inSync' },
    ],
    [
      'another image: one PATCH of it',
      recorded,
      (f) =>
        (f.recorded = {
          ...deploymentOf(f),
          source_revision_config: { image_uri: 'registry.example.com/agent:0' },
        }),
      { kind: 'patch', changed: ['source_revision_config.image_uri'] },
    ],
    [
      'an immutable field differs: stalled',
      recorded,
      (f) => (f.recorded = { ...deploymentOf(f), source_config: { listener_id: 'l-2' } }),
      { kind: 'stall', reason: 'ImmutableFieldChanged' },
    ],
    [
      'deleted by someone else: waiting',
      recorded,
      (f) => (f.recorded = deploymentOf(f, { status: 'AWAITING_DELETE' })),
      { kind: 'wait', reason: 'Deleting' },
    ],
  ])('%s', (_, over, read, expected) => {
    const f = resolved(facts(over));
    read(f);
    if (f.recorded && f.recorded !== 'missing')
      f.object.status.appliedConfigDigest = f.desired?.ok ? f.desired.digests.unechoed : undefined;
    expect(decidedBy(converge, f)).toMatchObject({ gate: 'converge', ...expected });
  });
});
