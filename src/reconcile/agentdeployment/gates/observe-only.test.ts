import { describe, expect, it } from 'vitest';
import { deploymentOf, facts, resolved } from '../facts.test-support.ts';
import type { AgentDeploymentFacts } from '../facts.ts';
import { observeOnly } from './observe-only.ts';

const observe = { spec: { managementPolicies: ['Observe' as const] } };

describe('gate observeOnly', () => {
  it.each<[string, Parameters<typeof facts>[0], (f: AgentDeploymentFacts) => void, object | undefined]>([
    ['full management: the next gate decides', {}, (f) => (f.byName = {}), undefined],
    [
      'nothing of its name: waiting, nothing created',
      observe,
      (f) => (f.byName = {}),
      { kind: 'wait', reason: 'NotFound' },
    ],
    [
      'its name, in sync: observed, no drift',
      observe,
      (f) => (f.byName = { live: deploymentOf(f) }),
      { kind: 'observed', drift: [], owned: false },
    ],
    [
      'its name, another image: drift reported, nothing sent',
      observe,
      (f) => {
        const d = deploymentOf(f);
        f.byName = { live: { ...d, source_revision_config: { image_uri: 'registry.example.com/agent:0' } } };
      },
      { kind: 'observed', drift: ['spec.sourceRevisionConfig.imageUri'] },
    ],
    [
      'being deleted: waiting',
      observe,
      (f) => (f.byName = { live: deploymentOf(f, { status: 'AWAITING_DELETE' }) }),
      undefined,
    ],
  ])('%s', (_, over, read, expected) => {
    const f = resolved(facts(over));
    read(f);
    const verdict = observeOnly(f);
    if (expected === undefined) expect(verdict?.kind === 'observed').toBe(false);
    else expect(verdict).toMatchObject({ gate: 'observeOnly', ...expected });
  });
});
