/** Gate `deleted`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { deployment, read } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { deleted } from './deleted.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  [
    'not read again: read it',
    read({ before: deployment('d-1'), sent: true }),
    { kind: 'read', read: 'after' },
  ],
  [
    'still there: the next gate',
    read({ before: deployment('d-1'), sent: true, after: deployment('d-1', 'AWAITING_DELETE') }),
    undefined,
  ],
  [
    'gone: deleted',
    read({ before: deployment('d-1'), sent: true, after: 'missing' }),
    { kind: 'release', how: 'deleted', event: { reason: 'Deleted', message: 'deleted deployment d-1' } },
  ],
];

describe('deleted', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = deleted(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
