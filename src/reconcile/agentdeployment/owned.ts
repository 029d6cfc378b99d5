/**
 * Which deployment is the object's, as a function of the facts gathered so far (reconcile/agentdeployment/ownership.ts):
 * what the ownership gate decides on, and what every later gate and actor reads as the owned
 * deployment. Not a gate: gates read it, none calls another gate.
 */
import { Annotation } from '../../api/names.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import { deploymentNameOf } from './claims.ts';
import type { AgentDeploymentFacts } from './facts.ts';
import { isObserveOnly } from './management.ts';
import { type OwnershipFacts, type OwnershipVerdict, ownership as ownershipVerdict } from './ownership.ts';

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
