/**
 * Gate `analysisRequest`: a person's word on the analysis (`kubectl agd promote` and `abort`, the
 * analysis-promote-requested-at and analysis-abort-requested-at annotations), once per value, as undo
 * is. Promote makes a Running or Inconclusive analysis Successful (the revision becomes the last good
 * one, a pause ends); abort makes it Failed now (spec.remediation decides, in the gates after). A request
 * that finds nothing to change is refused: recorded as handled, with why in status.analysisRequestRefused.
 * Bookkeeping only: nothing is sent from here.
 */

import { abortAnalysis, promoteAnalysis } from '../../../analysis/progress.ts';
import { Annotation } from '../../../api/names.ts';
import type { Gate } from '../verdict.ts';

export const analysisRequest: Gate = (facts) => {
  const { metadata, status } = facts.object;
  const annotations = metadata.annotations ?? {};
  const promote = annotations[Annotation.AnalysisPromoteRequestedAt];
  const abort = annotations[Annotation.AnalysisAbortRequestedAt];
  const request =
    promote !== undefined && promote !== status.lastHandledPromoteAt
      ? {
          value: promote,
          annotation: Annotation.AnalysisPromoteRequestedAt,
          handled: 'promoteHandled' as const,
        }
      : abort !== undefined && abort !== status.lastHandledAbortAt
        ? { value: abort, annotation: Annotation.AnalysisAbortRequestedAt, handled: 'abortHandled' as const }
        : undefined;
  if (!request) return undefined;
  const asked = `annotation ${request.annotation}=${request.value}`;
  const handled = { gate: 'analysisRequest', kind: 'analysis', [request.handled]: request.value } as const;
  const current = status.analysis;
  if (!current) return { ...handled, refused: `${asked}: there is no analysis (spec.analysis) to change` };
  const changed =
    request.handled === 'promoteHandled'
      ? promoteAnalysis(current, facts.now)
      : abortAnalysis(current, facts.now);
  if ('refused' in changed) return { ...handled, refused: `${asked}: ${changed.refused}` };
  return { ...handled, analysis: changed };
};
