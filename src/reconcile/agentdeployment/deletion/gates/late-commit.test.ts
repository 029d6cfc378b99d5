/** Gate `lateCommit`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { ago, deployment, read } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import { LATE_COMMIT_WINDOW_MS } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { lateCommit } from './late-commit.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['a recorded id: the next gate', read({ pendingSince: ago(1_000), byName: {} }), undefined],
  ['no create pending: the next gate', read({ recordedId: undefined, byName: {} }), undefined],
  [
    'a live one of the name (not taken): the next gate',
    read({ recordedId: undefined, pendingSince: ago(1_000), byName: { live: deployment('d-9') } }),
    undefined,
  ],
  [
    'nothing yet, within the window: wait',
    read({ recordedId: undefined, pendingSince: ago(1_000), byName: {} }),
    { kind: 'wait', why: 'lateCommit', reason: 'Deleting', retryAfterMs: LATE_COMMIT_WINDOW_MS - 1_000 },
  ],
  [
    'nothing, past the window: the next gate',
    read({ recordedId: undefined, pendingSince: ago(LATE_COMMIT_WINDOW_MS + 1), byName: {} }),
    undefined,
  ],
];

describe('lateCommit', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = lateCommit(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
