/** Gate `sendDelete`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { deployment, read } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { sendDelete } from './send-delete.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  [
    'live: DELETE by the recorded id',
    read({ before: deployment('d-1'), deleteTracingProject: true }),
    { kind: 'delete', id: 'd-1', deleteTracingProject: true },
  ],
  ['sent already: the next gate', read({ before: deployment('d-1'), sent: true }), undefined],
  [
    'the platform deleting it already: the next gate',
    read({ before: deployment('d-1', 'AWAITING_DELETE') }),
    undefined,
  ],
];

describe('sendDelete', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = sendDelete(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
