import { describe, expect, it } from 'vitest';
import { type StateKind, stateOf } from './object-state.ts';
import type { VerbObject } from './objects.ts';

const obj = (
  status: NonNullable<VerbObject['status']>,
  metadata: Partial<VerbObject['metadata']> = {},
): VerbObject => ({ metadata: { name: 'agent', generation: 2, ...metadata }, status });
const cond = (type: string, status: string, reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
});
const WHAT = 'AgentDeployment "agent"';

describe('stateOf', () => {
  it.each<[string, VerbObject, StateKind, string]>([
    [
      'ready, with its revision',
      obj({
        observedGeneration: 2,
        latestRevisionId: 'r-2',
        revisionStatus: 'DEPLOYED',
        conditions: [cond('Ready', 'True', 'Succeeded', 'revision r-2 deployed')],
      }),
      'ready',
      'AgentDeployment "agent" is ready: Succeeded: revision r-2 deployed (revision r-2 DEPLOYED)',
    ],
    [
      'paused by an inconclusive analysis: it waits for a person',
      obj({
        observedGeneration: 2,
        conditions: [
          cond('Ready', 'False', 'AnalysisInconclusive', 'promote or abort'),
          cond('Paused', 'True', 'AnalysisInconclusive', 'promote or abort'),
        ],
      }),
      'suspended',
      'AgentDeployment "agent" is paused: AnalysisInconclusive: promote or abort',
    ],
    [
      'a generation not observed yet, whatever Ready says',
      obj({ observedGeneration: 1, conditions: [cond('Ready', 'True', 'Succeeded', 'old')] }),
      'progressing',
      'Waiting for AgentDeployment "agent" to be observed: generation 2, observed 1',
    ],
    [
      'never observed',
      obj({}),
      'progressing',
      'Waiting for AgentDeployment "agent" to be observed: generation 2, observed none',
    ],
    [
      'reconciling: its reason and message',
      obj({
        observedGeneration: 2,
        latestRevisionId: 'r-2',
        revisionStatus: 'BUILDING',
        conditions: [
          cond('Ready', 'False', 'Progressing', 'building'),
          cond('Reconciling', 'True', 'Progressing', 'revision r-2 is BUILDING'),
        ],
      }),
      'progressing',
      'Waiting for AgentDeployment "agent": Progressing: revision r-2 is BUILDING (revision r-2 BUILDING)',
    ],
    [
      'stalled: failed',
      obj({
        observedGeneration: 2,
        conditions: [
          cond('Ready', 'False', 'RevisionFailed', 'x'),
          cond('Stalled', 'True', 'RevisionFailed', 'revision r-2 DEPLOY_FAILED'),
        ],
      }),
      'failed',
      'AgentDeployment "agent" failed: RevisionFailed: revision r-2 DEPLOY_FAILED',
    ],
    [
      'suspended',
      obj({ observedGeneration: 2 }, { annotations: { 'deploy.agents.dev/paused': 'true' } }),
      'suspended',
      'AgentDeployment "agent" is suspended (annotation deploy.agents.dev/paused): resume it with kubectl agd resume',
    ],
    [
      'being deleted',
      obj({}, { deletionTimestamp: '2026-01-01T00:00:00Z' }),
      'failed',
      'AgentDeployment "agent" is being deleted',
    ],
    [
      "the control plane's text cleaned: no escape reaches the terminal",
      obj({
        observedGeneration: 2,
        latestRevisionId: 'r\u001b]0;x\u0007',
        conditions: [cond('Stalled', 'True', 'Rejected', 'bad\u001b[2J\nvalue\u202e')],
      }),
      'failed',
      'AgentDeployment "agent" failed: Rejected: bad [2J value (revision r ]0;x)',
    ],
  ])('%s', (_, o, kind, line) => {
    expect(stateOf(o, WHAT)).toEqual({ kind, line });
  });
});
