/**
 * Gate `claims`: before anything is sent, the deployment id this object records or adopts, and its
 * deployment name, must not be claimed by another object of the same tenant (reconcile/claims.ts: who
 * sees which claim, and the tie-break): AlreadyManaged or NameConflict, Stalled, naming the other object.
 *
 * An adoption ranks only once its id is known to exist: when who wins turns on one (this object's, or
 * another's that meets it), the gate first reads the deployments of the object's name, under its credentials (the
 * controller and the plan both make this read; the ownership gate uses it next).
 */
import {
  type Claim,
  type ClaimConflict,
  claimConflict,
  claimOf,
  type ExistingIds,
  turnsOnProof,
} from '../../claims.ts';
import type { AgentDeploymentFacts } from '../facts.ts';
import type { Gate } from '../verdict.ts';

/** This object's claim, and the other objects' claims it meets; undefined before credentials resolve. */
export function claimsMet(facts: AgentDeploymentFacts): { self: Claim; others: Claim[] } | undefined {
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

export const claims: Gate = (facts) => {
  if (!facts.claims) return { gate: 'claims', kind: 'read', read: 'claims' };
  const met = claimsMet(facts);
  if (met && !facts.byName && met.others.some((o) => o.uid !== met.self.uid && turnsOnProof(met.self, o))) {
    return { gate: 'claims', kind: 'read', read: 'byName' };
  }
  const conflict = claimConflictOf(facts);
  if (!conflict) return undefined;
  return { gate: 'claims', kind: 'stall', reason: conflict.reason, message: conflict.message };
};
