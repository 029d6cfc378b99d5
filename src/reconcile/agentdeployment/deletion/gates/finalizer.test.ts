/** Gate `finalizer`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { base } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { finalizer } from './finalizer.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['the finalizer on: the next gate', base, undefined],
  ['no finalizer: let go', { ...base, hasFinalizer: false }, { kind: 'release', how: 'noFinalizer' }],
];

describe('finalizer', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = finalizer(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
