import { describe, expect, it } from 'vitest';
import { facts } from '../facts.test-support.ts';
import { holdWhileStalled } from './hold-while-stalled.ts';

const stalled = (reason: string, observedGeneration = 1) => ({
  conditions: [
    {
      type: 'Stalled',
      status: 'True' as const,
      reason,
      message: `stalled: ${reason}`,
      observedGeneration,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    },
  ],
});

describe('gate holdWhileStalled', () => {
  it.each<[string, Parameters<typeof facts>[0], string | undefined]>([
    ['not stalled', {}, undefined],
    ['a rejected request, unchanged object: held', { status: stalled('Rejected') }, 'Rejected'],
    [
      'an immutable change, unchanged object: held',
      { status: stalled('ImmutableFieldChanged') },
      'ImmutableFieldChanged',
    ],
    ['an adoption problem: held', { status: stalled('AdoptionFailed') }, 'AdoptionFailed'],
    [
      'the object changed since (new generation): looked at again',
      { status: stalled('Rejected'), generation: 2 },
      undefined,
    ],
    [
      'a reconcile requested: looked at again',
      { status: stalled('Rejected'), reconcileRequested: true },
      undefined,
    ],
    [
      'a failed revision is not held (a build on push is followed)',
      { status: stalled('RevisionFailed') },
      undefined,
    ],
  ])('%s', (_, over, reason) => {
    const verdict = holdWhileStalled(facts(over));
    if (reason === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'holdWhileStalled', kind: 'stall', reason });
  });
});
