import { describe, expect, it } from 'vitest';
import { facts } from '../facts.test-support.ts';
import { credentialsInUse } from './credentials-in-use.ts';

describe('gate credentialsInUse', () => {
  it.each<[string, Parameters<typeof facts>[0], boolean]>([
    ['once per pass: the in-use finalizers are put right', {}, true],
    ['done in this pass', { prepared: new Set(['credentialsInUse'] as const) }, false],
  ])('%s', (_, over, asks) => {
    const verdict = credentialsInUse(facts(over));
    if (!asks) expect(verdict).toBeUndefined();
    else expect(verdict).toEqual({ gate: 'credentialsInUse', kind: 'prepare', prepare: 'credentialsInUse' });
  });
});
