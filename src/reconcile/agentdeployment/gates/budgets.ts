/**
 * Gate `budgets`: the Secrets the object references (credentials included) are read here, within the
 * object's budget (settings.objectSecretBudget, all its Secrets together) and its namespace's (the
 * controller's Secret cache): past either, Stalled BudgetExceeded.
 */
import { secretsOverBudget } from '../secret-budget.ts';
import type { Gate } from '../verdict.ts';

export const budgets: Gate = (facts) => {
  const { secrets } = facts;
  if (!secrets) return { gate: 'budgets', kind: 'read', read: 'secrets' };
  const over = secretsOverBudget(secrets, facts.settings.objectSecretBudget);
  return over ? { gate: 'budgets', kind: 'stall', reason: 'BudgetExceeded', message: over } : undefined;
};
