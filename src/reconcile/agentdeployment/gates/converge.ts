/**
 * Gate `converge` (reconcile/decide.ts): none there, create it; equal, in sync (the revision is followed
 * next); drift, one PATCH of what differs; a change the platform cannot make, Stalled; being deleted by
 * someone else, waiting.
 */
import { decide } from '../../decide.ts';
import { isObserveOnly } from '../../management.ts';
import type { Gate } from '../verdict.ts';
import { ownedDeployment } from './ownership.ts';

export const converge: Gate = (facts) => {
  // Observe-only sends nothing: its verdict is observeOnly's and followRevision's.
  if (!facts.desired?.ok || isObserveOnly(facts.object.spec)) return undefined;
  const { request, digests } = facts.desired;
  const deployment = ownedDeployment(facts);
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
