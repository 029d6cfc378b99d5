/**
 * Facts derived from the facts gathered, each by one named derivation (advance.ts, `derive`), once, when
 * the first gate that reads them asks: the drift decision between the spec and the owned deployment
 * (facts.drift), read by fastRevert and converge; and whether writes are held after a rollback. Not
 * gates: gates read these, none calls another gate.
 */
import { pendingRedeployRequest } from '../../runtime/annotations.ts';
import { type DriftDecision, driftDecision } from './drift-decision.ts';
import type { AgentDeploymentFacts } from './facts.ts';
import { ownedDeployment } from './owned.ts';
import { holdsAfterRollback } from './remediation.ts';
import type { PatchVerdict } from './verdict.ts';

/** The drift decision: the spec's request against the owned deployment (create, none, patch, wait, stall). */
export function driftOf(facts: AgentDeploymentFacts): DriftDecision {
  if (!facts.desired?.ok) throw new Error('drift derived before the desired deployment');
  const { request, digests } = facts.desired;
  return driftDecision({
    desired: request,
    observed: ownedDeployment(facts),
    digests,
    applied: facts.object.status,
  });
}

/** The PATCH a drift decision asks for, as the verdict that sends it. */
export function patchVerdictOf(facts: AgentDeploymentFacts): PatchVerdict | undefined {
  const decision = facts.drift;
  const deployment = ownedDeployment(facts);
  if (decision?.kind !== 'patch' || !deployment || !facts.desired?.ok) return undefined;
  return {
    kind: 'patch',
    deployment,
    patch: decision.patch,
    changed: decision.changed,
    createsRevision: decision.createsRevision,
    secretsTakenAsCurrent: decision.secretsTakenAsCurrent,
    digests: facts.desired.digests,
  };
}

/** After a rollback made for this generation, nothing is sent until the spec changes or a person asks. */
export function writesHeld(facts: AgentDeploymentFacts): boolean {
  const { metadata, status } = facts.object;
  const asked =
    facts.reconcileRequested ||
    pendingRedeployRequest({ metadata: { annotations: metadata.annotations } }, status) !== undefined;
  return holdsAfterRollback(status.history ?? [], metadata.generation ?? 0, asked);
}
