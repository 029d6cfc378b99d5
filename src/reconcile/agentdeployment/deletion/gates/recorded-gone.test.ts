/** Gate `recordedGone`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { deployment, read } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { recordedGone } from './recorded-gone.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['not read: read it', read({}), { kind: 'read', read: 'before' }],
  ['live: the next gate', read({ before: deployment('d-1') }), undefined],
  ['missing: gone, release', read({ before: 'missing' }), { kind: 'release', how: 'gone' }],
  [
    'missing, recorded before digests were kept: gone',
    read({ recordedTenant: undefined, before: 'missing' }),
    { kind: 'release', how: 'gone' },
  ],
  [
    'missing under other credentials: CredentialsChanged',
    read({ recordedTenant: 'sha256:then', before: 'missing' }),
    { kind: 'stall', reason: 'CredentialsChanged' },
  ],
];

describe('recordedGone', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = recordedGone(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
