/**
 * Gate `claims`: before anything is sent, the deployment id this object records or adopts, and its
 * deployment name, must not be claimed by another object of the same tenant (reconcile/agentdeployment/claims.ts: who
 * sees which claim, and the tie-break): AlreadyManaged or NameConflict, Stalled, naming the other object.
 *
 * An adoption ranks only once its id is known to exist: when who wins turns on one (this object's, or
 * another's that meets it), the gate first reads the deployments of the object's name, under its credentials (the
 * controller and the plan both make this read; the ownership gate uses it next).
 */
import { claimConflict, turnsOnProof } from '../claims.ts';
import { existingIdsOf } from '../claims-met.ts';
import type { Gate } from '../verdict.ts';

export const claims: Gate = (facts) => {
  if (!facts.claims) return { gate: 'claims', kind: 'read', read: 'claims' };
  if (facts.claimsMet === undefined) return { gate: 'claims', kind: 'read', read: 'claimsMet' };
  const met = facts.claimsMet;
  if (met && !facts.byName && met.others.some((o) => o.uid !== met.self.uid && turnsOnProof(met.self, o))) {
    return { gate: 'claims', kind: 'read', read: 'byName' };
  }
  const conflict = met && claimConflict(met.self, met.others, existingIdsOf(facts));
  if (!conflict) return undefined;
  return { gate: 'claims', kind: 'stall', reason: conflict.reason, message: conflict.message };
};
