import { describe, expect, it } from 'vitest';
import type { AgentDeploymentStatus } from '../../../api/agentdeployment.ts';
import type { AnalysisStatus } from '../../../api/analysis.ts';
import { Annotation } from '../../../api/names.ts';
import { facts } from '../facts.test-support.ts';
import { analysisRequest } from './analysis-request.ts';

const T = '2026-06-01T00:00:00Z';
const analysisIn = (phase: AnalysisStatus['phase']): AgentDeploymentStatus => ({
  analysis: { revisionId: 'r-1', phase, startedAt: '2026-05-31T00:00:00.000Z', metrics: [] },
});
const promote = { [Annotation.AnalysisPromoteRequestedAt]: T };
const abort = { [Annotation.AnalysisAbortRequestedAt]: T };

describe('gate analysisRequest', () => {
  it.each<[string, Record<string, string>, AgentDeploymentStatus, object | undefined]>([
    ['no request: nothing to do', {}, analysisIn('Running'), undefined],
    [
      'a request handled already: nothing to do',
      promote,
      { ...analysisIn('Running'), lastHandledPromoteAt: T },
      undefined,
    ],
    [
      'promote of an inconclusive analysis: Successful, handled',
      promote,
      analysisIn('Inconclusive'),
      { promoteHandled: T, analysis: { phase: 'Successful', message: 'promoted by a person' } },
    ],
    [
      'promote of a running analysis: Successful',
      promote,
      analysisIn('Running'),
      { analysis: { phase: 'Successful' } },
    ],
    [
      'abort of a running analysis: Failed now, handled',
      abort,
      analysisIn('Running'),
      { abortHandled: T, analysis: { phase: 'Failed', message: 'aborted by a person' } },
    ],
    [
      'promote with no analysis: refused, handled, naming the annotation',
      promote,
      {},
      { promoteHandled: T, refused: expect.stringMatching(/analysis-promote-requested-at=.*no analysis/) },
    ],
    [
      'abort of an ended analysis: refused, handled',
      abort,
      analysisIn('Successful'),
      { abortHandled: T, refused: expect.stringMatching(/already ended Successful/) },
    ],
  ])('%s', (_, annotations, status, expected) => {
    const verdict = analysisRequest(facts({ annotations, status }));
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'analysisRequest', kind: 'analysis', ...expected });
  });
});
