/**
 * What deleting an object reads about its credentials, the same for the finalize step and the plan's
 * --prune: the chain's own gates for the Secrets' budgets and the credentials, then the claims, through
 * the caller's port. A wait or a stall comes back as the gate's verdict.
 */
import type { DeletionCredentials } from '../deletion.ts';
import { derive } from './advance.ts';
import type { AgentDeploymentFacts } from './facts.ts';
import { budgets } from './gates/budgets.ts';
import { claimConflictOf } from './gates/claims.ts';
import { credentials } from './gates/credentials.ts';
import { ownershipFactsOf } from './owned.ts';
import type { ProgramPort } from './program.ts';
import type { FinalVerdict } from './verdict.ts';

export async function deletionCredentials(
  facts: AgentDeploymentFacts,
  port: Pick<ProgramPort, 'read'>,
): Promise<DeletionCredentials | (FinalVerdict & { kind: 'wait' | 'stall' })> {
  if (!facts.secrets) await port.read('secrets', facts);
  const overBudget = budgets(facts);
  if (overBudget?.kind === 'stall') return overBudget;
  derive(facts, 'credentials');
  const refused = credentials(facts);
  if (refused?.kind === 'stall' || refused?.kind === 'wait') return refused;
  if (!facts.claims) await port.read('claims', facts);
  return {
    tenant: facts.credentials?.ok ? facts.credentials.tenant : undefined,
    conflict: claimConflictOf(facts),
    claimedBy: ownershipFactsOf(facts).claimedBy,
  };
}
