/**
 * Gate `budgets`: the Secrets the object references (credentials included) are read here, within the
 * object's budget (settings.objectSecretBudget, all its Secrets together) and its namespace's (the
 * controller's Secret cache): past either, Stalled BudgetExceeded.
 */
import { dataBytes } from '../../../lib/data-bytes.ts';
import type { Gate } from '../verdict.ts';

export const budgets: Gate = (facts) => {
  const { secrets } = facts;
  if (!secrets) return { gate: 'budgets', kind: 'read', read: 'secrets' };
  if (secrets.namespaceBudgetExceeded)
    return {
      gate: 'budgets',
      kind: 'stall',
      reason: 'BudgetExceeded',
      message: secrets.namespaceBudgetExceeded,
    };
  let bytes = 0;
  for (const data of secrets.byName.values()) bytes += dataBytes(data);
  const budget = facts.settings.objectSecretBudget;
  if (bytes <= budget) return undefined;
  return {
    gate: 'budgets',
    kind: 'stall',
    reason: 'BudgetExceeded',
    message: `the Secrets this object references hold ${bytes} bytes of values, more than the ${budget} bytes one object may reference; reference fewer or smaller Secrets`,
  };
};
