import { describe, expect, it } from 'vitest';
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../../../api/agentdeployment.ts';
import type { Analysis, AnalysisStatus } from '../../../api/analysis.ts';
import { Reason } from '../../../api/names.ts';
import { decidedBy, deploymentOf, facts, resolved } from '../facts.test-support.ts';
import { analysis } from './analysis.ts';

const NOW = '2026-06-01T00:00:00.000Z';
const LATER = '2026-06-01T00:01:00.000Z';

const ANALYSIS: Analysis = {
  count: 3,
  interval: '1m',
  metrics: [
    {
      name: 'errors',
      web: { url: 'https://m.example.com/e', jsonPath: '{$.rate}' },
      successCondition: 'result < 0.1',
    },
  ],
};

const metric = {
  name: 'errors',
  measured: 1,
  successful: 1,
  failed: 0,
  inconclusive: 0,
  error: 0,
  consecutiveErrors: 0,
  measurements: [],
};
const running = (over: Partial<AnalysisStatus> = {}): AnalysisStatus => ({
  revisionId: 'r-1',
  phase: 'Running',
  startedAt: NOW,
  nextMeasurementAt: NOW,
  metrics: [metric],
  ...over,
});

function deployed(spec: Partial<AgentDeploymentSpec>, status: AgentDeploymentStatus, revision = 'DEPLOYED') {
  const f = resolved(facts({ spec: { analysis: ANALYSIS, ...spec }, status }));
  f.inSync = true;
  f.followed = {
    deployment: deploymentOf(f),
    revision: { id: 'r-1', status: revision, createdAt: NOW },
  };
  return f;
}

describe('gate analysis', () => {
  it.each<[string, Partial<AgentDeploymentSpec>, AgentDeploymentStatus, string, object | undefined]>([
    ['no spec.analysis: nothing to analyse', { analysis: undefined }, {}, 'DEPLOYED', undefined],
    ['still deploying: followRevision decides', {}, {}, 'DEPLOYING', undefined],
    [
      'deployed, no analysis yet: one starts for the revision',
      {},
      {},
      'DEPLOYED',
      { kind: 'analysis', analysis: { revisionId: 'r-1', phase: 'Running', nextMeasurementAt: NOW } },
    ],
    [
      "an earlier revision's analysis: a new one starts for this revision",
      {},
      { analysis: running({ revisionId: 'r-0' }) },
      'DEPLOYED',
      { kind: 'analysis', analysis: { revisionId: 'r-1', phase: 'Running' } },
    ],
    [
      'verification asked for and not succeeded yet: not analysed',
      { verification: { assistantId: 'agent' } },
      {},
      'DEPLOYED',
      undefined,
    ],
    [
      'running, measurements due: measure them',
      {},
      { analysis: running() },
      'DEPLOYED',
      { kind: 'measure', metrics: ['errors'], revision: { id: 'r-1' } },
    ],
    [
      'running, next measurement later: AnalysisRunning, looked at again then',
      {},
      { analysis: running({ nextMeasurementAt: LATER }) },
      'DEPLOYED',
      {
        kind: 'progressing',
        analysisRunning: true,
        requeueAfterMs: 60_000,
        message: expect.stringMatching(/errors 1\/3/),
      },
    ],
    [
      'running, the spec now asks for fewer measurements: it ends Successful',
      { analysis: { ...ANALYSIS, count: 1 } },
      { analysis: running() },
      'DEPLOYED',
      { kind: 'analysis', analysis: { phase: 'Successful' } },
    ],
    [
      'successful: the revision is Ready (followRevision)',
      {},
      { analysis: running({ phase: 'Successful' }) },
      'DEPLOYED',
      undefined,
    ],
    [
      'inconclusive: paused for a person',
      {},
      { analysis: running({ phase: 'Inconclusive', message: 'metric errors was inconclusive' }) },
      'DEPLOYED',
      {
        kind: 'paused',
        reason: Reason.AnalysisInconclusive,
        message: expect.stringMatching(/promote.*abort/),
      },
    ],
    [
      'failed under remediation None: AnalysisFailed',
      {},
      { analysis: running({ phase: 'Failed', message: 'metric errors failed' }) },
      'DEPLOYED',
      {
        kind: 'stall',
        reason: Reason.AnalysisFailed,
        message: expect.stringMatching(/metric errors failed.*None/),
      },
    ],
    [
      'failed under Rollback with nothing to roll back to: AnalysisFailed saying why',
      { remediation: { strategy: 'Rollback' } },
      { analysis: running({ phase: 'Failed', message: 'metric errors failed' }) },
      'DEPLOYED',
      {
        kind: 'stall',
        reason: Reason.AnalysisFailed,
        message: expect.stringMatching(/cannot roll back: no revision/),
      },
    ],
    [
      'a condition that does not compile: InvalidAnalysis naming the field',
      {
        analysis: {
          ...ANALYSIS,
          metrics: [
            { ...(ANALYSIS.metrics[0] as Analysis['metrics'][number]), successCondition: 'result <' },
          ],
        },
      },
      {},
      'DEPLOYED',
      {
        kind: 'stall',
        reason: Reason.InvalidAnalysis,
        message: expect.stringMatching(/spec\.analysis\.metrics\[0\]\.successCondition/),
      },
    ],
  ])('%s', (_, spec, status, revision, expected) => {
    const verdict = decidedBy(analysis, deployed(spec, status, revision));
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'analysis', ...expected });
  });

  it('observe-only objects are never analysed', () => {
    const f = deployed({ managementPolicies: ['Observe'] }, {});
    f.inSync = false;
    f.observation = { drift: [], fields: [], digests: { secrets: '', unechoed: '' } };
    expect(decidedBy(analysis, f)).toBeUndefined();
  });
});
