/**
 * Gate `analysis` (spec.analysis, src/analysis/progress.ts): once the latest revision is DEPLOYED (and,
 * with spec.verification, verified), it is analysed, once: a new revision starts an analysis (one of
 * an earlier revision is left for it); while Running, the metrics that are due are measured (the act's
 * analysis stage, then the chain decides again) and the pass looks again when the next are due;
 * Successful lets the revision be Ready (the history's mark makes it the last good one); Failed is
 * spec.remediation's (the gate rollback rolls back when it can; here it stalls, AnalysisFailed);
 * Inconclusive pauses (AnalysisInconclusive) until a person promotes or aborts it. A condition that
 * cannot be evaluated stalls (InvalidAnalysis, naming the field).
 */

import { advanceAnalysis, intervalMs, startAnalysis } from '../../../analysis/progress.ts';
import type { Analysis, AnalysisStatus } from '../../../api/analysis.ts';
import { Reason } from '../../../api/names.ts';
import { remediationDecisionOf } from '../remediation.ts';
import type { Gate } from '../verdict.ts';

export const analysis: Gate = (facts) => {
  const { spec, status } = facts.object;
  const follow = facts.follow;
  if (!spec.analysis || facts.observation || follow?.kind !== 'ready' || !facts.followed) return undefined;
  const { revision } = follow;
  const v = status.verification;
  if (spec.verification && (v?.revisionId !== revision.id || v.last?.outcome !== 'Succeeded'))
    return undefined;
  if (!facts.conditions) return { gate: 'analysis', kind: 'read', read: 'conditions' };
  if (!facts.conditions.ok)
    return {
      gate: 'analysis',
      kind: 'stall',
      reason: Reason.InvalidAnalysis,
      message: `revision ${revision.id} cannot be analysed: ${facts.conditions.message}`,
    };
  const current = status.analysis;
  if (current?.revisionId !== revision.id)
    return {
      gate: 'analysis',
      kind: 'analysis',
      analysis: startAnalysis(spec.analysis, revision.id, facts.now),
    };
  const about = `the analysis of revision ${revision.id}`;
  switch (current.phase) {
    case 'Successful':
      return undefined;
    case 'Inconclusive':
      return {
        gate: 'analysis',
        kind: 'paused',
        reason: Reason.AnalysisInconclusive,
        message: `${about} is inconclusive: ${current.message ?? 'promote or abort it'} (kubectl agd promote, kubectl agd abort)`,
      };
    case 'Failed':
      return {
        gate: 'analysis',
        kind: 'stall',
        reason: Reason.AnalysisFailed,
        message: `${about} failed (${current.message ?? 'no message'}); ${noRollback(facts, revision.id)}`,
      };
    case 'Running':
      break;
  }
  const step = advanceAnalysis(spec.analysis, current, {}, facts.now);
  // The spec's counts or limits changed under it: it ends without a measurement.
  if (step.status.phase !== 'Running') return { gate: 'analysis', kind: 'analysis', analysis: step.status };
  const { decision } = step;
  const dueInMs = decision.kind === 'measure' ? Date.parse(decision.at) - facts.now.getTime() : 0;
  if (decision.kind === 'measure' && dueInMs <= 0 && decision.metrics.length > 0)
    return {
      gate: 'analysis',
      kind: 'measure',
      deployment: facts.followed.deployment,
      revision,
      metrics: decision.metrics,
      message: `${about}: measuring ${decision.metrics.join(', ')}`,
    };
  return {
    gate: 'analysis',
    kind: 'progressing',
    analysisRunning: true,
    message: `${about} is running: ${progressOf(spec.analysis, current)}`,
    requeueAfterMs: Math.max(dueInMs, 1000),
    revision,
  };
};

/** Why a failed analysis rolls nothing back (the gate rollback rolled back when it could). */
function noRollback(facts: Parameters<Gate>[0], id: string): string {
  const { spec, status } = facts.object;
  if (spec.remediation?.strategy !== 'Rollback')
    return 'spec.remediation is None: the revision keeps serving until the spec changes or a person rolls back (kubectl agd undo)';
  const decision = remediationDecisionOf({
    strategy: 'Rollback',
    verificationFailures: undefined,
    latest: { id, failure: 'analysis', message: status.analysis?.message ?? '' },
    history: status.history ?? [],
    lastGoodRevision: status.lastGoodRevision,
    activeRevisionId: facts.followed?.deployment.active_revision_id ?? undefined,
  });
  const why = decision.action === 'none' ? decision.why : undefined;
  return `spec.remediation Rollback cannot roll back: ${why ?? 'nothing to roll back to'}`;
}

/** Each deciding metric's measurements so far, of spec.analysis.count. */
function progressOf(spec: Analysis, status: AnalysisStatus): string {
  const metrics = status.metrics
    .map((m) => `${m.name} ${m.measured}/${spec.count}${m.dryRun ? ' (dry run)' : ''}`)
    .join(', ');
  return `${metrics}, a measurement every ${Math.round(intervalMs(spec) / 1000)}s`;
}
