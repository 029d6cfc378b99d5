import { describe, expect, it } from 'vitest';
import { derive } from '../advance.ts';
import { facts } from '../facts.test-support.ts';
import { credentials } from './credentials.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('gate credentials', () => {
  it('not derived yet: derive them', () => {
    expect(credentials(facts())).toEqual({ gate: 'credentials', kind: 'read', read: 'credentials' });
  });

  it.each<[string, Parameters<typeof facts>[0], object | undefined]>([
    ['the controller credentials', {}, undefined],
    [
      'a credentials Secret missing: waiting',
      { spec: { credentialsSecretRef: { name: 'creds' } } },
      { kind: 'wait', reason: 'WaitingForCredentials' },
    ],
    [
      'a credentials Secret without a key: waiting (InvalidCredentials)',
      {
        spec: { credentialsSecretRef: { name: 'creds' } },
        secrets: { byName: new Map([['creds', { tenantId: b64('t') }]]) },
      },
      { kind: 'wait', reason: 'InvalidCredentials' },
    ],
    [
      'a control plane not on the list: stalled',
      {
        spec: { credentialsSecretRef: { name: 'creds' } },
        secrets: {
          byName: new Map([['creds', { apiKey: b64('k'), baseUrl: b64('https://elsewhere.example') }]]),
        },
      },
      { kind: 'stall', reason: 'ControlPlaneNotAllowed' },
    ],
    [
      'its own credentials on the allowed control plane',
      {
        spec: { credentialsSecretRef: { name: 'creds' } },
        secrets: { byName: new Map([['creds', { apiKey: b64('k') }]]) },
      },
      undefined,
    ],
  ])('%s', (_, over, expected) => {
    const f = facts(over);
    f.secrets ??= { byName: new Map() };
    derive(f, 'credentials');
    const verdict = credentials(f);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'credentials', ...expected });
  });
});
