/**
 * Gate `converge` (reconcile/decide.ts): none there, create it; equal, in sync (the revision is followed
 * next); drift, one PATCH of what differs; a change the platform cannot make, Stalled; being deleted by
 * someone else, waiting.
 */

import { pendingRedeployRequest } from '../../../runtime/annotations.ts';
import { decide } from '../../decide.ts';
import { isObserveOnly } from '../../management.ts';
import { holdsAfterRollback } from '../../remediation.ts';
import type { AgentDeploymentFacts } from '../facts.ts';
import type { Gate } from '../verdict.ts';
import { ownedDeployment } from './ownership.ts';

export const converge: Gate = (facts) => {
  // Observe-only sends nothing: its verdict is observeOnly's and followRevision's.
  if (!facts.desired?.ok || isObserveOnly(facts.object.spec)) return undefined;
  const { request, digests } = facts.desired;
  const deployment = ownedDeployment(facts);
  if (deployment && writesHeld(facts)) {
    // After a rollback for this spec, the failed configuration is not sent again (remediation.ts): the
    // revision is followed as it runs, nothing recorded as applied.
    if (facts.inSync) return undefined;
    return {
      gate: 'converge',
      kind: 'inSync',
      deployment,
      secretsTakenAsCurrent: false,
      digests,
      held: true,
    };
  }
  const decision = decide({ desired: request, observed: deployment, digests, applied: facts.object.status });
  switch (decision.kind) {
    case 'create':
      return { gate: 'converge', kind: 'create', request: decision.request, digests };
    case 'none':
      // In sync: recorded once, then revision following decides.
      if (facts.inSync || !deployment) return undefined;
      return {
        gate: 'converge',
        kind: 'inSync',
        deployment,
        secretsTakenAsCurrent: decision.secretsTakenAsCurrent,
        digests,
      };
    case 'patch':
      return (
        deployment && {
          gate: 'converge',
          kind: 'patch',
          deployment,
          patch: decision.patch,
          changed: decision.changed,
          createsRevision: decision.createsRevision,
          secretsTakenAsCurrent: decision.secretsTakenAsCurrent,
          digests,
        }
      );
    case 'wait':
      return { gate: 'converge', kind: 'wait', reason: decision.reason, message: decision.message };
    case 'stall':
      return { gate: 'converge', kind: 'stall', reason: decision.reason, message: decision.message };
  }
};

/** After a rollback made for this generation, nothing is sent until the spec changes or a person asks. */
export function writesHeld(facts: AgentDeploymentFacts): boolean {
  const { metadata, status } = facts.object;
  const asked =
    facts.reconcileRequested ||
    pendingRedeployRequest({ metadata: { annotations: metadata.annotations } }, status) !== undefined;
  return holdsAfterRollback(status.history ?? [], metadata.generation ?? 0, asked);
}
