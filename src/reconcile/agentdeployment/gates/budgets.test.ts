import { describe, expect, it } from 'vitest';
import { facts } from '../facts.test-support.ts';
import { budgets } from './budgets.ts';

const secrets = (byName: Record<string, Record<string, string> | undefined>, exceeded?: string) => ({
  byName: new Map(Object.entries(byName)),
  ...(exceeded ? { namespaceBudgetExceeded: exceeded } : {}),
});

describe('gate budgets', () => {
  it.each<[string, Parameters<typeof facts>[0], object | undefined]>([
    ['not read yet: read the Secrets', {}, { kind: 'read', read: 'secrets' }],
    ['within both budgets', { secrets: secrets({ a: { k: 'dmFsdWU=' } }) }, undefined],
    ['a missing Secret weighs nothing', { secrets: secrets({ a: undefined }) }, undefined],
    [
      "past the namespace's budget: stalled, with the cache's reason",
      { secrets: secrets({}, 'Secret team-a/a would pass the budget') },
      { kind: 'stall', reason: 'BudgetExceeded', message: 'Secret team-a/a would pass the budget' },
    ],
    [
      "past the object's budget, all its Secrets together",
      {
        secrets: secrets({ a: { k: 'x'.repeat(600) }, b: { k: 'x'.repeat(600) } }),
        settings: { ...facts().settings, objectSecretBudget: 1_000 },
      },
      { kind: 'stall', reason: 'BudgetExceeded' },
    ],
  ])('%s', (_, over, expected) => {
    const verdict = budgets(facts(over));
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'budgets', ...expected });
  });
});
