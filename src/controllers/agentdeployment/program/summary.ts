/**
 * The AgentDeployment's summary, after the last step: the Verified condition, the events that status
 * changes stand for, and when to come back. Ready, Reconciling, Stalled and Paused come from the outcome
 * in the shell.
 */
import type { AgentDeploymentStatus } from '../../../api/agentdeployment.ts';
import { ConditionType, EventReason } from '../../../api/names.ts';
import { isObserveOnly } from '../../../reconcile/agentdeployment/management.ts';
import { removeCondition, setCondition } from '../../../runtime/conditions.ts';
import type { Outcome } from '../../../runtime/outcome.ts';
import { conditionChange, type PendingEvent } from '../../../runtime/reconcile-shell.ts';
import type { VerifiedCondition } from '../../../verification/view.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from '../types.ts';

/** The Verified condition: set by the verification stage, reset by a new revision, gone without a spec. */
export function summarizeVerified(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  outcome: Outcome,
): void {
  if (outcome.kind === 'paused') return;
  const { status } = pass;
  const conditions = status.conditions ?? [];
  // An observe-only object runs no smoke run (it would write a thread on the agent server).
  if (!pass.spec.verification || isObserveOnly(pass.spec)) {
    delete status.verification;
    deps.verifier.forget(pass.key);
    status.conditions = removeCondition(conditions, ConditionType.Verified);
    return;
  }
  if (!pass.verified && status.verification && status.verification.revisionId !== status.latestRevisionId) {
    delete status.verification;
    deps.verifier.forget(pass.key);
  }
  const verified: VerifiedCondition | undefined =
    pass.verified ??
    (status.verification
      ? undefined
      : {
          status: 'Unknown',
          reason: 'WaitingForRevision',
          message: `verification waits for revision ${status.latestRevisionId ?? '(none)'} to be DEPLOYED`,
        });
  if (verified) {
    status.conditions = setCondition(
      conditions,
      { type: ConditionType.Verified, ...verified, observedGeneration: pass.generation },
      pass.decidedAt,
    );
  }
}

/** A revision that reached DEPLOYED, and a verification that newly passed. Problems are the shell's. */
export function statusEvents(before: AgentDeploymentStatus, after: AgentDeploymentStatus): PendingEvent[] {
  const events: PendingEvent[] = [];
  const deployedNow =
    after.revisionStatus === 'DEPLOYED' &&
    (before.revisionStatus !== 'DEPLOYED' || before.latestRevisionId !== after.latestRevisionId);
  if (deployedNow) {
    events.push({
      type: 'Normal',
      reason: EventReason.RevisionDeployed,
      message: `revision ${after.latestRevisionId} is DEPLOYED`,
    });
  }
  const verified = conditionChange(before, after, ConditionType.Verified);
  if (verified?.now?.status === 'True' && verified.was?.status !== 'True') {
    events.push({
      type: 'Normal',
      reason: EventReason.Verified,
      message: `revision ${after.latestRevisionId} verified: ${verified.now.message}`,
    });
  }
  return events;
}
