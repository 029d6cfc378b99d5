/**
 * Gate `rollback` (reconcile/agentdeployment/remediation.ts, issue 33): the latest revision failed past spec.retry (its
 * deploy, as followRevision says, or its verification or analysis, as status records them): under spec.remediation
 * Rollback, redeploy the last good revision; a rollback's own revision failing is RollbackFailed (never a
 * rollback of a rollback); no rollback possible is RevisionFailed saying why. Observe-only says what it
 * would do and sends nothing. A closed deployment window whose source forbids rollbacks (allowRollback
 * false: the object's spec.remediation, a policy's) holds it: WindowClosed until it opens.
 */
import { Reason } from '../../../api/names.ts';
import type { AgentDeploymentFacts } from '../facts.ts';
import { type LatestFailure, type RemediationDecision, remediationDecisionOf } from '../remediation.ts';
import type { Gate, Verdict } from '../verdict.ts';
import { rollbackHold } from '../window-fact.ts';

export const rollback: Gate = (facts) => {
  // The follow verdict, once derived (follow-verdict.ts; the gate followRevision asks for it).
  const follow = facts.follow;
  if (!follow || !facts.followed) return undefined;
  const latest = latestFailure(facts, follow);
  if (!latest) return undefined;
  const { spec, status } = facts.object;
  const observeOnly = !!facts.observation;
  if (observeOnly && spec.remediation?.strategy !== 'Rollback') return undefined;
  const { deployment } = facts.followed;
  const decision = remediationDecisionOf({
    strategy: spec.remediation?.strategy,
    verificationFailures: spec.remediation?.verificationFailures,
    latest,
    history: status.history ?? [],
    lastGoodRevision: status.lastGoodRevision,
    activeRevisionId: deployment.active_revision_id ?? undefined,
  });
  if (follow.kind === 'stall' && observeOnly)
    return {
      ...follow,
      gate: 'rollback',
      message: `${follow.message}${wouldDo(decision)}`,
      remediation: true,
    };
  switch (decision.action) {
    case 'rollback':
      return (
        rollbackHold(facts, 'rollback') ?? {
          gate: 'rollback',
          kind: 'rollback',
          deployment,
          from: decision.from,
          to: decision.to,
          message: decision.message,
        }
      );
    case 'rollbackFailed':
      return {
        gate: 'rollback',
        kind: 'stall',
        reason: Reason.RollbackFailed,
        message: decision.message,
        remediation: true,
      };
    case 'none':
      // Why there is no rollback, said with the failure (a failed verification is verified again); a
      // failed analysis is the gate analysis's to say.
      if (!decision.why || latest.failure === 'analysis') return undefined;
      if (follow.kind === 'ready') return { ...follow, gate: 'rollback', noRollback: decision.why };
      if (follow.kind !== 'stall') return undefined;
      return {
        ...follow,
        gate: 'rollback',
        message: `${follow.message}; ${decision.why}`,
        remediation: true,
      };
  }
};

/**
 * How the latest revision failed: a failed deploy spec.retry gave up on (followRevision's RevisionFailed),
 * or a failed verification of it (the agent's own failure, as the verification stage recorded it).
 */
function latestFailure(facts: AgentDeploymentFacts, follow: Verdict): LatestFailure | undefined {
  if (follow.kind === 'stall' && follow.reason === Reason.RevisionFailed && follow.revision)
    return { id: follow.revision.id, failure: 'deploy', status: follow.revision.status };
  if (follow.kind !== 'ready' || facts.observation) return undefined;
  const a = facts.object.status.analysis;
  if (facts.object.spec.analysis && a?.revisionId === follow.revision.id && a.phase === 'Failed')
    return { id: follow.revision.id, failure: 'analysis', message: a.message ?? 'the analysis failed' };
  const v = facts.object.status.verification;
  if (v?.revisionId !== follow.revision.id || v.last?.outcome !== 'Failed') return undefined;
  return { id: follow.revision.id, failure: 'verification', failures: v.failures ?? 1 };
}

/** Observe-only: what spec.remediation would do about the failed revision, said and never done. */
function wouldDo(decision: RemediationDecision): string {
  const what =
    decision.action === 'rollback'
      ? `would roll back to revision ${decision.to}`
      : decision.action === 'rollbackFailed'
        ? decision.message
        : `would not roll back (${decision.why ?? 'nothing to roll back to'})`;
  return `; observe-only: spec.remediation ${what}, and nothing is sent`;
}
