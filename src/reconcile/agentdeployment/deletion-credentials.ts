/**
 * The deletion chain's `credentials` read (reconcile/agentdeployment/deletion/), the same for the finalize step and the
 * plan's --prune: the AgentDeployment's reads through the caller's port (the Secrets, the claims) and
 * its derivations (the Secrets' budgets, the credentials, the claim that wins), so deleting an object
 * calls with the credentials, and weighs the claims, exactly as reconciling it does. Why there are none
 * (past a budget, missing, not allowed) is the fact's, for the deletion's credentials gate to decide on.
 */
import type { Reason } from '../../api/names.ts';
import { derive } from './advance.ts';
import { claimConflictOf } from './claims-met.ts';
import type { DeletionCredentials } from './deletion/facts.ts';
import type { AgentDeploymentFacts } from './facts.ts';
import { ownershipFactsOf } from './owned.ts';
import type { ProgramPort } from './program.ts';
import { secretsOverBudget } from './secret-budget.ts';

export async function readDeletionCredentials(
  facts: AgentDeploymentFacts,
  port: Pick<ProgramPort, 'read'>,
): Promise<DeletionCredentials> {
  if (!facts.secrets) await port.read('secrets', facts);
  const secrets = facts.secrets;
  if (!secrets) throw new Error('the port did not read the Secrets');
  const over = secretsOverBudget(secrets, facts.settings.objectSecretBudget);
  if (over) return { ok: false, kind: 'stall', reason: 'BudgetExceeded', message: over };
  derive(facts, 'credentials');
  const creds = facts.credentials;
  if (!creds) throw new Error('the credentials were not derived');
  if (!creds.ok)
    return { ok: false, kind: creds.kind, reason: creds.reason as Reason, message: creds.message };
  if (!facts.claims) await port.read('claims', facts);
  return {
    ok: true,
    tenant: creds.tenant,
    conflict: claimConflictOf(facts),
    claimedBy: ownershipFactsOf(facts).claimedBy,
  };
}
