/**
 * What safe rollouts change in an AgentDeployment's plan, from the same decisions the controller takes
 * (reconcile/remediation.ts): after a rollback for this very spec, nothing is sent; a spec equal to a
 * revision that deployed is a redeploy of it (no build); a failed latest revision under
 * spec.remediation Rollback would be rolled back. Kept apart (and small) while the plan moves to the
 * shared reconcile chain.
 */
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../api/agentdeployment.ts';
import { REVISION_FAILED } from '../controlplane/schemas.ts';
import type { Decision } from '../reconcile/decide.ts';
import type { RevisionConfig } from '../reconcile/history.ts';
import {
  decideRemediation,
  holdsAfterRollback,
  type LatestFailure,
  revertTarget,
  rolledBackMessage,
} from '../reconcile/remediation.ts';
import type { PlanEntry } from './model.ts';

export interface RemediationPlanInput {
  spec: AgentDeploymentSpec;
  status: AgentDeploymentStatus;
  /** The live object's generation, when the input's spec is the live one (else the spec changes). */
  unchangedGeneration: number | undefined;
  /** The generation the input's spec would have: the live one, or the next. */
  generation: number;
  decision: Decision;
  desired: RevisionConfig;
  observed:
    | { id: string; latest_revision_id?: string | null; active_revision_id?: string | null }
    | undefined;
}

type Entry = Omit<PlanEntry, 'kind' | 'namespace' | 'name' | 'notes'>;

/** How the latest revision failed, as the live status records it; undefined when it did not. */
function latestFailure(spec: AgentDeploymentSpec, status: AgentDeploymentStatus): LatestFailure | undefined {
  const id = status.latestRevisionId;
  if (!id) return undefined;
  const revisionStatus = status.revisionStatus ?? '';
  const retriesLeft = (spec.retry?.limit ?? 0) > (status.retries ?? 0) && revisionStatus === 'DEPLOY_FAILED';
  if (REVISION_FAILED.has(revisionStatus) && !retriesLeft)
    return { id, failure: 'deploy', status: revisionStatus };
  const v = status.verification;
  if (v?.revisionId === id && v.last?.outcome === 'Failed')
    return { id, failure: 'verification', failures: v.failures ?? 1 };
  return undefined;
}

export function remediationPlan(input: RemediationPlanInput): Entry | undefined {
  const { spec, status, decision, observed } = input;
  const history = status.history ?? [];
  if (!observed) return undefined;
  const base = { deploymentId: observed.id };
  if (
    input.unchangedGeneration !== undefined &&
    holdsAfterRollback(history, input.unchangedGeneration, false)
  ) {
    return {
      ...base,
      action: 'none',
      reason: 'RolledBack',
      message: rolledBackMessage(history, !!spec.verification) ?? 'rolled back: nothing is sent',
    };
  }
  if (decision.kind === 'patch') {
    const target = revertTarget({
      history,
      desired: input.desired,
      changed: decision.changed,
      createsRevision: decision.createsRevision,
      latestRevisionId: observed.latest_revision_id ?? undefined,
      generation: input.generation,
    });
    if (!target) return undefined;
    return {
      ...base,
      action: 'patch',
      message: `would redeploy revision ${target.id} (no build): the spec's configuration equals it, instead of patching ${decision.changed.join(', ')}`,
      redeployRevision: target.id,
      createsRevision: true,
    };
  }
  const latest = decision.kind === 'none' ? latestFailure(spec, status) : undefined;
  if (!latest) return undefined;
  const remedy = decideRemediation({
    strategy: spec.remediation?.strategy,
    verificationFailures: spec.remediation?.verificationFailures,
    latest,
    history,
    lastGoodRevision: status.lastGoodRevision,
    activeRevisionId: observed.active_revision_id ?? undefined,
  });
  if (remedy.action !== 'rollback') return undefined;
  return {
    ...base,
    action: 'patch',
    message: `would roll back to revision ${remedy.to} (a redeploy, no build): ${remedy.message}`,
    redeployRevision: remedy.to,
    createsRevision: true,
  };
}
