import { describe, expect, it } from 'vitest';
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../api/agentdeployment.ts';
import type { FinalVerdict } from '../reconcile/agentdeployment/verdict.ts';
import { analysisNotes } from './analysis-notes.ts';

const spec = {
  source: 'external_image',
  analysis: {
    count: 5,
    interval: '2m',
    metrics: [
      {
        name: 'errors',
        web: { url: 'https://m.example.com', jsonPath: '{$.r}' },
        successCondition: 'result < 1',
      },
      { name: 'p95', agentServer: { assistantId: 'agent' }, successCondition: 'true', dryRun: true },
    ],
  },
} as unknown as AgentDeploymentSpec;
const patch = { kind: 'patch', createsRevision: true } as unknown as FinalVerdict;
const none = { kind: 'ready' } as unknown as FinalVerdict;
const running: AgentDeploymentStatus = {
  analysis: {
    revisionId: 'r-3',
    phase: 'Running',
    startedAt: '2026-06-01T00:00:00.000Z',
    metrics: [
      {
        name: 'errors',
        measured: 2,
        successful: 2,
        failed: 0,
        inconclusive: 0,
        error: 0,
        consecutiveErrors: 0,
        measurements: [],
      },
    ],
  },
};

describe('analysisNotes', () => {
  it('a verdict that makes a revision: the analysis it will get', () => {
    expect(analysisNotes(spec, {}, patch)).toEqual([
      'the new revision is analysed once deployed: errors (web), p95 (agentServer, dry run), 5 × 2m; it becomes the last good revision only if the analysis succeeds',
    ]);
  });

  it('an object under analysis: its phase and counts', () => {
    expect(analysisNotes(spec, running, none)).toEqual([
      'analysis of revision r-3: Running: errors 2 measured (2 successful, 0 failed, 0 inconclusive, 0 errors)',
    ]);
  });

  it('no spec.analysis, no status.analysis: nothing said', () => {
    expect(analysisNotes({ ...spec, analysis: undefined }, {}, patch)).toEqual([]);
  });
});
