import { describe, expect, it } from 'vitest';
import { derive } from '../advance.ts';
import { facts } from '../facts.test-support.ts';
import { desired } from './desired.ts';

const token = { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'app', key: 'token' } } };

describe('gate desired', () => {
  it('not derived yet: derive it', () => {
    expect(desired(facts())).toEqual({ gate: 'desired', kind: 'read', read: 'desired' });
  });

  it.each<[string, Parameters<typeof facts>[0], boolean]>([
    ['no secrets', {}, false],
    [
      'a referenced Secret there',
      { spec: { secrets: [token] }, secrets: { byName: new Map([['app', { token: 'dA==' }]]) } },
      false,
    ],
    ['a referenced Secret missing: waiting', { spec: { secrets: [token] } }, true],
    [
      'a key missing from it: waiting',
      { spec: { secrets: [token] }, secrets: { byName: new Map([['app', {}]]) } },
      true,
    ],
  ])('%s', (_, over, waits) => {
    const f = facts(over);
    f.secrets ??= { byName: new Map() };
    derive(f, 'desired');
    const verdict = desired(f);
    if (!waits) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'desired', kind: 'wait', reason: 'WaitingForSecret' });
  });
});
