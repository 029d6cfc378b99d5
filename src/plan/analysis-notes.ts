/**
 * What the plan says about spec.analysis besides the verdict: the analysis a revision the verdict makes
 * will get (its metrics, count × interval), and, for an object under analysis, where it stands (phase and
 * counts). Words only: what happens is the chain's verdict, which the plan prints as the controller acts.
 */

import { providerOf } from '../analysis/analyst.ts';
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../api/agentdeployment.ts';
import { DEFAULT_ANALYSIS_INTERVAL } from '../api/analysis.ts';
import type { FinalVerdict } from '../reconcile/agentdeployment/verdict.ts';

/** Verdicts that make a revision. */
const MAKES_REVISION = new Set(['create', 'redeploy', 'revert', 'rollback']);

export function analysisNotes(
  spec: AgentDeploymentSpec,
  status: AgentDeploymentStatus,
  verdict: FinalVerdict,
): string[] {
  const notes: string[] = [];
  const a = spec.analysis;
  const makesRevision =
    MAKES_REVISION.has(verdict.kind) || (verdict.kind === 'patch' && verdict.createsRevision);
  if (a && makesRevision) {
    const metrics = a.metrics
      .map((m) => `${m.name} (${providerOf(m)}${m.dryRun ? ', dry run' : ''})`)
      .join(', ');
    notes.push(
      `the new revision is analysed once deployed${spec.verification ? ' and verified' : ''}: ${metrics}, ${a.count} × ${a.interval ?? DEFAULT_ANALYSIS_INTERVAL}; it becomes the last good revision only if the analysis succeeds`,
    );
  }
  const current = status.analysis;
  if (current) {
    const counts = current.metrics
      .map(
        (m) =>
          `${m.name} ${m.measured} measured (${m.successful} successful, ${m.failed} failed, ${m.inconclusive} inconclusive, ${m.error} errors)`,
      )
      .join('; ');
    notes.push(`analysis of revision ${current.revisionId}: ${current.phase}${counts ? `: ${counts}` : ''}`);
  }
  return notes;
}
