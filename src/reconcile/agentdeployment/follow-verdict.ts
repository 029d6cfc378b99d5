/**
 * The verdict of following the latest revision (reconcile/agentdeployment/follow.ts), derived once the deployment
 * matches the spec and its revision was read (facts.follow): a redeploy request (annotation) or
 * spec.retry on a failed one redeploys it; a failure, or a revision past spec.progressDeadline, is
 * Stalled; one in progress is looked at again; the object is Ready with the revision DEPLOYED and the
 * deployment READY. Observe-only follows read-only. The gates followRevision, rollback and rolledBack
 * read it; none of them computes it.
 */
import { Reason } from '../../api/names.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import { pendingRedeployRequest } from '../../runtime/annotations.ts';
import type { AgentDeploymentFacts } from './facts.ts';
import { type FollowDecision, followDecisionOf, progressDeadlineOf, retryPolicyOf } from './follow.ts';
import { driftMessage } from './management.ts';
import { currentRollback } from './remediation.ts';
import type { Verdict } from './verdict.ts';

/** The follow verdict of facts whose revision was read (facts.followed). */
export function followVerdictOf(facts: AgentDeploymentFacts): Verdict {
  if (facts.observation) return followReadOnly(facts);
  const followed = facts.followed as NonNullable<AgentDeploymentFacts['followed']>;
  const { deployment, revision } = followed;
  if (!revision)
    return {
      gate: 'followRevision',
      kind: 'progressing',
      message: `deployment ${deployment.id} has no revision yet`,
    };
  const { metadata, spec, status } = facts.object;
  const request = pendingRedeployRequest({ metadata: { annotations: metadata.annotations } }, status);
  const decision = followDecisionOf({
    deployment,
    revision,
    progressDeadlineMs: progressDeadlineOf(spec),
    // Never a retry of a rollback's revision (spec.retry stops where remediation took over).
    retry: currentRollback(status.history ?? [])?.entry.id === revision.id ? undefined : retryPolicyOf(spec),
    retries: status.retries ?? 0,
    redeployRequest: request,
    minPollMs: facts.revisionPollMs,
    nowMs: facts.now.getTime(),
  });
  const followedRevision = { id: revision.id, status: revision.status };
  const handled = decision.requestHandled ? request : undefined;
  const verdict = verdictOfFollow(decision, deployment, followedRevision, { handled });
  // A rollback's revision in progress is still the rollback (the gate rolledBack takes it once ready).
  if (verdict.kind === 'progressing' && currentRollback(status.history ?? [])?.entry.id === revision.id)
    return { ...verdict, rollingBack: true };
  return verdict;
}

/**
 * Observe-only: the revision followed without ever redeploying (no request, no retry); a failure or a
 * revision past its deadline stalls first, then drift is DriftDetected; else what the revision says.
 */
function followReadOnly(facts: AgentDeploymentFacts): Verdict {
  const observation = facts.observation as NonNullable<AgentDeploymentFacts['observation']>;
  const { deployment, revision } = facts.followed as NonNullable<AgentDeploymentFacts['followed']>;
  const decision = revision
    ? followDecisionOf({
        deployment,
        revision,
        progressDeadlineMs: progressDeadlineOf(facts.object.spec),
        retry: undefined,
        retries: 0,
        redeployRequest: undefined,
        minPollMs: facts.revisionPollMs,
        nowMs: facts.now.getTime(),
      })
    : undefined;
  // A failed revision says so first; then drift.
  if (decision?.action !== 'stall' && observation.drift.length > 0) {
    return {
      gate: 'observeOnly',
      kind: 'stall',
      reason: Reason.DriftDetected,
      message: driftMessage(deployment.id, observation.drift),
      drift: { deployment, fields: observation.fields },
    };
  }
  if (!decision || !revision)
    return {
      gate: 'followRevision',
      kind: 'progressing',
      message: `deployment ${deployment.id} has no revision yet`,
    };
  if (decision.action === 'redeploy') throw new Error('a read-only follow asked for a redeploy');
  const followedRevision = { id: revision.id, status: revision.status };
  const verdict = verdictOfFollow(decision, deployment, followedRevision, {});
  return verdict.kind === 'ready' ? { ...verdict, message: `observe-only: ${verdict.message}` } : verdict;
}

/**
 * The gate's verdict for reconcile/agentdeployment/follow.ts's decision, the same for full management and observe-only;
 * `extra`: what full management adds (the redeploy request the decision answered).
 */
function verdictOfFollow(
  decision: FollowDecision,
  deployment: Deployment,
  revision: { id: string; status: string },
  extra: { handled?: string | undefined },
): Verdict {
  switch (decision.action) {
    case 'redeploy':
      return {
        gate: 'followRevision',
        kind: 'redeploy',
        deployment,
        revision,
        trigger: decision.trigger,
        why: decision.why,
        ...extra,
      };
    case 'stall':
      return {
        gate: 'followRevision',
        kind: 'stall',
        reason: decision.reason,
        message: decision.message,
        revision,
        ...extra,
      };
    case 'progressing':
      return {
        gate: 'followRevision',
        kind: 'progressing',
        message: decision.message,
        requeueAfterMs: decision.requeueAfterMs,
        revision,
        ...extra,
      };
    case 'ready':
      return { gate: 'followRevision', kind: 'ready', message: decision.message, revision, ...extra };
  }
}
