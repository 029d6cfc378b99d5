/**
 * Gate `ownership`: which deployment is this object's (reconcile/ownership.ts): its recorded id, an
 * adoption by annotation, its own create whose answer was lost (the create guard), or none; asks for
 * the read it needs next, forgets a recorded deployment that is gone, records an adoption or a find,
 * and stops on a conflict (NameConflict, CreateUnconfirmed, AdoptionFailed, CredentialsChanged ...).
 */
import { Annotation } from '../../../api/names.ts';
import type { Deployment } from '../../../controlplane/schemas.ts';
import { deploymentNameOf } from '../../claims.ts';
import { isObserveOnly } from '../../management.ts';
import {
  type OwnershipFacts,
  type OwnershipVerdict,
  ownership as ownershipVerdict,
} from '../../ownership.ts';
import type { AgentDeploymentFacts } from '../facts.ts';
import type { Gate } from '../verdict.ts';

/** The ownership verdict's facts, from the pass's. */
export function ownershipFactsOf(facts: AgentDeploymentFacts): OwnershipFacts {
  const { metadata, spec, status } = facts.object;
  const creds = facts.credentials?.ok ? facts.credentials : undefined;
  const self = metadata.uid ?? metadata.name;
  return {
    name: deploymentNameOf({ metadata, spec }),
    recordedId: status.deploymentId,
    recordedTenant: status.credentialsDigest,
    pendingSince: status.createPendingSince,
    adoptId: metadata.annotations?.[Annotation.AdoptDeploymentId],
    tenant: creds?.tenant,
    claimedBy: (id) =>
      creds && facts.claims
        ? facts.claims
            .claims({
              tenant: creds.tenant,
              identity: creds.identity,
              tenanted: creds.credentials.tenantId !== undefined,
              ids: [id],
            })
            .find((c) => c.uid !== self && (c.deploymentId === id || c.adoptId === id))?.key
        : undefined,
    statusKnown: facts.statusKnown,
    observeOnly: isObserveOnly(spec),
    now: facts.now,
    revisionPollMs: facts.revisionPollMs,
    recorded: facts.recorded,
    adopted: facts.adopted,
    byName: facts.byName,
  };
}

/** The ownership verdict now. */
export const ownershipOf = (facts: AgentDeploymentFacts): OwnershipVerdict =>
  ownershipVerdict(ownershipFactsOf(facts));

/** The deployment the object owns (or, observe-only, watches), once the gate has let it pass. */
export function ownedDeployment(facts: AgentDeploymentFacts): Deployment | undefined {
  const verdict = ownershipOf(facts);
  return verdict.kind === 'owned' ? verdict.deployment : undefined;
}

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
