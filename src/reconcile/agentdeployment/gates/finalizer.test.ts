import { describe, expect, it } from 'vitest';
import { facts } from '../facts.test-support.ts';
import { finalizer } from './finalizer.ts';

describe('gate finalizer', () => {
  it.each<[string, Parameters<typeof facts>[0], boolean]>([
    ['the finalizer is on', {}, false],
    ['none yet: it goes on before anything is created', { finalizers: [] }, true],
    [
      'observe-only deletes nothing: none needed',
      { finalizers: [], spec: { managementPolicies: ['Observe'] } },
      false,
    ],
    ['already put on in this pass', { finalizers: [], prepared: new Set(['addFinalizer'] as const) }, false],
  ])('%s', (_, over, asks) => {
    const verdict = finalizer(facts(over));
    if (!asks) expect(verdict).toBeUndefined();
    else expect(verdict).toEqual({ gate: 'finalizer', kind: 'prepare', prepare: 'addFinalizer' });
  });
});
