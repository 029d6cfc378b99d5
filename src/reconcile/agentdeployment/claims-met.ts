/**
 * The claims this object meets, derived from the facts (credentials and claims read): its own claim, the
 * other objects' it meets, the ids known to exist, and the claim that wins over it. The claims gate
 * reads them as a fact derived once per pass (facts.claimsMet, advance.ts); the act's create contest and
 * deleting's credentials read (deletion-credentials.ts) judge on the claims as they are then. Not a gate.
 */
import { type Claim, type ClaimConflict, claimConflict, claimOf, type ExistingIds } from './claims.ts';
import type { AgentDeploymentFacts } from './facts.ts';

/** This object's claim, and the other objects' claims it meets. */
export interface ClaimsMet {
  self: Claim;
  others: Claim[];
}

/** The claims this object meets now; undefined before credentials resolve. */
export function claimsMet(facts: AgentDeploymentFacts): ClaimsMet | undefined {
  const creds = facts.credentials;
  if (!creds?.ok || !facts.claims) return undefined;
  const self = claimOf(facts.object, creds.tenant);
  const ids = [self.deploymentId, self.adoptId].filter((id): id is string => id !== undefined);
  const others = facts.claims.claims({
    tenant: creds.tenant,
    identity: creds.identity,
    tenanted: creds.credentials.tenantId !== undefined,
    name: self.name,
    ids,
  });
  return { self, others };
}

/**
 * The ids known to exist: the deployments the lookup of the object's name found, under its credential
 * identity, which is the identity of every adoption it sees (claims.ts: visibleClaim). An adoption of an
 * id of another name is not proven by it, nor can it succeed for an object of this name.
 */
export function existingIdsOf(facts: AgentDeploymentFacts): ExistingIds {
  const { live, deleting } = facts.byName ?? {};
  return new Set([live?.id, deleting?.id].filter((id): id is string => id !== undefined));
}

/** Another object's claim that wins over this one's (`judge`: the gate's rule, or the create contest). */
export function claimConflictOf(
  facts: AgentDeploymentFacts,
  judge: typeof claimConflict = claimConflict,
): ClaimConflict | undefined {
  const met = claimsMet(facts);
  return met && judge(met.self, met.others, existingIdsOf(facts));
}
