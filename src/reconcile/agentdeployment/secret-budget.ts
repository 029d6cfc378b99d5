/**
 * Whether the Secrets an object references are past a budget: its own (settings.objectSecretBudget, all
 * its Secrets together) or its namespace's (the controller's Secret cache). Read by the budgets gate and
 * by deleting's credentials read (deletion-credentials.ts); not a gate.
 */
import { dataBytes } from '../../lib/data-bytes.ts';
import type { SecretsRead } from './facts.ts';

/** Why the Secrets are past a budget (BudgetExceeded), or undefined when they are within both. */
export function secretsOverBudget(secrets: SecretsRead, budget: number): string | undefined {
  if (secrets.namespaceBudgetExceeded) return secrets.namespaceBudgetExceeded;
  let bytes = 0;
  for (const data of secrets.byName.values()) bytes += dataBytes(data);
  if (bytes <= budget) return undefined;
  return `the Secrets this object references hold ${bytes} bytes of values, more than the ${budget} bytes one object may reference; reference fewer or smaller Secrets`;
}
