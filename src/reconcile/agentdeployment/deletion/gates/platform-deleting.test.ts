/** Gate `platformDeleting`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { deployment, read } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { platformDeleting } from './platform-deleting.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  [
    'deleted this pass: waits, with a Deleting event',
    read({ before: deployment('d-1'), sent: true, after: deployment('d-1', 'AWAITING_DELETE') }),
    {
      kind: 'wait',
      why: 'platformDeleting',
      deployment: deployment('d-1', 'AWAITING_DELETE'),
      event: {
        reason: 'Deleting',
        message: 'deletion of deployment d-1 requested; the platform reports AWAITING_DELETE',
      },
    },
  ],
  [
    'deleting before this pass: waits, no event',
    read({ before: deployment('d-1', 'AWAITING_DELETE'), after: deployment('d-1', 'AWAITING_DELETE') }),
    { kind: 'wait', why: 'platformDeleting', event: undefined },
  ],
];

describe('platformDeleting', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = platformDeleting(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
