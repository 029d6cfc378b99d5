/** Gate `credentials`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { base, read } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { credentials } from './credentials.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['not read: read them', base, { kind: 'read', read: 'credentials' }],
  ['resolved: the next gate', read({}), undefined],
  [
    'missing: waits as the AgentDeployment does',
    { ...base, credentials: { ok: false, kind: 'wait', reason: 'WaitingForCredentials', message: 'm' } },
    { kind: 'wait', why: 'credentials', reason: 'WaitingForCredentials', message: 'm' },
  ],
  [
    'past the budget: stalled',
    { ...base, credentials: { ok: false, kind: 'stall', reason: 'BudgetExceeded', message: 'm' } },
    { kind: 'stall', reason: 'BudgetExceeded', message: 'm' },
  ],
];

describe('credentials', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = credentials(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
