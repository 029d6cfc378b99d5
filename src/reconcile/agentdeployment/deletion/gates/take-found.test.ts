/** Gate `takeFound`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { ago, credentials, deployment, read } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { takeFound } from './take-found.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['a recorded id: the next gate', read({ pendingSince: ago(1_000) }), undefined],
  ['no create pending: the next gate', read({ recordedId: undefined }), undefined],
  [
    'pending: the name looked up',
    read({ recordedId: undefined, pendingSince: ago(1_000) }),
    { kind: 'read', read: 'byName' },
  ],
  [
    'nothing of the name: the next gate',
    read({ recordedId: undefined, pendingSince: ago(1_000), byName: {} }),
    undefined,
  ],
  [
    'made after the mark: taken (Found)',
    read({
      recordedId: undefined,
      pendingSince: '2026-01-01T00:58:00Z',
      byName: { live: deployment('d-9') },
    }),
    { kind: 'take', deployment: deployment('d-9') },
  ],
  [
    'made before the mark: the next gate',
    read({
      recordedId: undefined,
      pendingSince: '2026-01-01T00:59:30Z',
      byName: { live: deployment('d-9') },
    }),
    undefined,
  ],
  [
    'claimed by another object: the next gate',
    read({
      recordedId: undefined,
      pendingSince: '2026-01-01T00:58:00Z',
      byName: { live: deployment('d-9') },
      credentials: credentials({ claimedBy: () => 'ns/other' }),
    }),
    undefined,
  ],
];

describe('takeFound', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = takeFound(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
