/**
 * Gate `ownership`: which deployment is this object's (reconcile/agentdeployment/ownership.ts): its recorded id, an
 * adoption by annotation, its own create whose answer was lost (the create guard), or none; asks for
 * the read it needs next, forgets a recorded deployment that is gone, records an adoption or a find,
 * and stops on a conflict (NameConflict, CreateUnconfirmed, AdoptionFailed, CredentialsChanged ...).
 */
import { ownershipOf } from '../owned.ts';
import type { Gate } from '../verdict.ts';

export const ownership: Gate = (facts) => {
  const verdict = ownershipOf(facts);
  switch (verdict.kind) {
    case 'read':
      return { gate: 'ownership', kind: 'read', read: verdict.read };
    case 'forget':
      return { gate: 'ownership', kind: 'forget', message: verdict.message };
    case 'owned': {
      const { deployment, how, message } = verdict;
      const recorded = facts.object.status.deploymentId === deployment.id;
      if ((how === 'adopted' || how === 'found') && !recorded)
        return { gate: 'ownership', kind: 'own', deployment, how, message: message ?? '' };
      return undefined;
    }
    case 'none':
      return undefined;
    case 'stall':
      return { gate: 'ownership', kind: 'stall', reason: verdict.reason, message: verdict.message };
    case 'wait':
      return {
        gate: 'ownership',
        kind: 'wait',
        reason: verdict.reason,
        message: verdict.message,
        retryAfterMs: verdict.retryAfterMs,
      };
  }
};
