/** Gate `orphanPolicy`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { base } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { orphanPolicy } from './orphan-policy.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['deletionPolicy Delete: the next gate', base, undefined],
  [
    'Orphan: release, the deployment left',
    { ...base, policy: 'Orphan' },
    {
      kind: 'release',
      how: 'orphaned',
      leftId: 'd-1',
      event: { reason: 'Orphaned', message: 'left deployment d-1 on the control plane' },
    },
  ],
  [
    'observe-only, owning nothing: said so',
    { ...base, policy: 'Orphan', observeOnly: true, recordedId: undefined },
    {
      kind: 'release',
      event: { reason: 'Orphaned', message: 'left deployment (none) on the control plane (observe-only)' },
    },
  ],
];

describe('orphanPolicy', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = orphanPolicy(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
