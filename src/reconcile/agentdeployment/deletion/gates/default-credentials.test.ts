/** Gate `defaultCredentials`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { base } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { defaultCredentials } from './default-credentials.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['allowed: the next gate', base, undefined],
  [
    'refused: waits, naming the way out',
    { ...base, defaultCredentialsRefused: 'not here' },
    {
      kind: 'wait',
      why: 'defaultCredentialsNotAllowed',
      reason: 'DefaultCredentialsNotAllowed',
      message:
        'cannot delete deployment d-1: not here; or set spec.deletionPolicy to Orphan to release the object',
    },
  ],
];

describe('defaultCredentials', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = defaultCredentials(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
