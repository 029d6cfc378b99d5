/** Gate `refusedMadeNothing`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { base } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { refusedMadeNothing } from './refused-made-nothing.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['allowed: the next gate', base, undefined],
  ['refused, recording an id: the next gate', { ...base, defaultCredentialsRefused: 'no' }, undefined],
  [
    'refused, nothing recorded: release, nothing read',
    { ...base, recordedId: undefined, defaultCredentialsRefused: 'no' },
    { kind: 'release', how: 'orphaned' },
  ],
];

describe('refusedMadeNothing', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = refusedMadeNothing(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
