/** Gate `deleting`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { base } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { deleting } from './deleting.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['being deleted: the next gate', base, undefined],
  ['not being deleted: nothing', { ...base, deleting: false }, { kind: 'none' }],
];

describe('deleting', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = deleting(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
