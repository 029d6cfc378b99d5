/** Gate `ownsNothing`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { read } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { ownsNothing } from './owns-nothing.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['a recorded id: the next gate', read({}), undefined],
  [
    'none: release, nothing deleted',
    read({ recordedId: undefined }),
    {
      kind: 'release',
      how: 'orphaned',
      event: {
        reason: 'Orphaned',
        message: 'this object owns no deployment on the control plane: nothing deleted',
      },
    },
  ],
];

describe('ownsNothing', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = ownsNothing(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
