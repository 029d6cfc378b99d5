/** Gate `copiedStatus`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { credentials, read } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { copiedStatus } from './copied-status.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['no conflict: the next gate', read({}), undefined],
  [
    'a NameConflict: the next gate',
    read({ credentials: credentials({ conflict: { reason: 'NameConflict', message: 'x' } }) }),
    undefined,
  ],
  [
    'AlreadyManaged, nothing recorded: the next gate',
    read({
      recordedId: undefined,
      credentials: credentials({ conflict: { reason: 'AlreadyManaged', message: 'x' } }),
    }),
    undefined,
  ],
  [
    "AlreadyManaged: the other object's, released",
    read({ credentials: credentials({ conflict: { reason: 'AlreadyManaged', message: 'x manages d-1' } }) }),
    {
      kind: 'release',
      how: 'orphaned',
      leftId: 'd-1',
      event: { reason: 'Orphaned', message: 'x manages d-1' },
    },
  ],
];

describe('copiedStatus', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = copiedStatus(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
