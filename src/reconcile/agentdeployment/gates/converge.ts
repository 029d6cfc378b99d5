/**
 * Gate `converge` (the drift decision, reconcile/agentdeployment/drift-decision.ts, derived as facts.drift): none there, create
 * it; equal, in sync (the revision is followed next); drift, one PATCH of what differs; a change the
 * platform cannot make, Stalled; being deleted by someone else, waiting.
 */

import { patchVerdictOf, writesHeld } from '../derived.ts';
import { isObserveOnly } from '../management.ts';
import { ownedDeployment } from '../owned.ts';
import type { Gate } from '../verdict.ts';

export const converge: Gate = (facts) => {
  // Observe-only sends nothing: its verdict is observeOnly's and followRevision's.
  if (!facts.desired?.ok || isObserveOnly(facts.object.spec)) return undefined;
  const { digests } = facts.desired;
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
  const decision = facts.drift;
  if (!decision) return { gate: 'converge', kind: 'read', read: 'drift' };
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
    case 'patch': {
      const patch = patchVerdictOf(facts);
      return patch && { gate: 'converge', ...patch };
    }
    case 'wait':
      return {
        gate: 'converge',
        kind: 'wait',
        reason: decision.reason,
        message: decision.message,
        compared: true,
      };
    case 'stall':
      return {
        gate: 'converge',
        kind: 'stall',
        reason: decision.reason,
        message: decision.message,
        compared: true,
      };
  }
};
