/**
 * status.history kept as a pass reads and makes revisions (reconcile/agentdeployment/history.ts decides each step), for
 * the controller's gather and acts and for the plan's gather alike: the gates `rollback`, `rolledBack` and
 * `fastRevert` then decide on the same history whoever reads.
 */
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import type { HistoryEntry, RevisionTrigger } from '../../api/remediation.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import {
  addRevision,
  configOfRevision,
  historyLimitOf,
  lastGood,
  observeAnalysisPhase,
  observeStatus,
  observeVerification,
  type RevisionConfig,
} from './history.ts';

export interface HistoryContext {
  /** The status being built (changed in place). */
  status: AgentDeploymentStatus;
  spec: AgentDeploymentSpec;
  generation: number;
  /** The secrets and resource spec the deployment runs with: the spec's, converge having applied them. */
  around: RevisionConfig;
  now: Date;
}

const historyOf = (ctx: HistoryContext): HistoryEntry[] => ctx.status.history ?? [];

/** The history replaced, and the last good revision it implies. */
export function setHistory(ctx: HistoryContext, history: HistoryEntry[]): void {
  ctx.status.history = history;
  const good = lastGood(history, !!ctx.spec.verification);
  if (good) ctx.status.lastGoodRevision = good;
  else delete ctx.status.lastGoodRevision;
}

/**
 * A revision made (create, PATCH, redeploy) or first seen: its source as the answer describes the
 * latest revision, with the secrets and resources around it.
 */
export function noteRevision(
  ctx: HistoryContext,
  deployment: Deployment,
  trigger: RevisionTrigger,
  redeployOf?: string,
): void {
  const id = deployment.latest_revision_id;
  if (!id) return;
  const history = addRevision(
    historyOf(ctx),
    {
      id,
      config: configOfRevision(deployment.source_revision_config, ctx.around),
      trigger,
      redeployOf,
      generation: ctx.generation,
      at: ctx.now.toISOString(),
    },
    { limit: historyLimitOf(ctx.spec), verificationRequired: !!ctx.spec.verification },
  );
  setHistory(ctx, history);
}

/** The latest revision's status as read; one never seen was made by someone else. */
export function observeRevision(ctx: HistoryContext, deployment: Deployment, status: string): void {
  const id = deployment.latest_revision_id;
  if (!id) return;
  // The first revision an object records (an upgrade, an adoption) is the spec's; later ones the platform's.
  if (!historyOf(ctx).some((e) => e.id === id))
    noteRevision(ctx, deployment, historyOf(ctx).length === 0 ? 'Spec' : 'Platform');
  setHistory(ctx, observeStatus(historyOf(ctx), id, status, ctx.now.toISOString()));
}

/** A verification result of revision `id`. */
export function observeVerified(ctx: HistoryContext, id: string, result: 'True' | 'False' | 'Unknown'): void {
  if (result === 'Unknown') return;
  const verdict = result === 'True' ? 'Succeeded' : 'Failed';
  setHistory(ctx, observeVerification(historyOf(ctx), id, verdict, ctx.now.toISOString()));
}

/** The phase of revision `id`'s analysis: a revision is good only once its analysis succeeded. */
export function observeAnalysis(
  ctx: HistoryContext,
  id: string,
  phase: NonNullable<HistoryEntry['analysis']>,
): void {
  setHistory(ctx, observeAnalysisPhase(historyOf(ctx), id, phase));
}
