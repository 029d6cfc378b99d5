import { describe, expect, it } from 'vitest';
import { readVerificationKey, type VerificationKeyRead, verificationCaller } from './caller.ts';

const b64 = (v: string) => Buffer.from(v).toString('base64');

describe('readVerificationKey: the key of spec.verification.credentialsSecretRef', () => {
  it.each<[string, Record<string, string> | undefined, VerificationKeyRead]>([
    ['an API key, trimmed', { apiKey: b64('k-1\n') }, { key: { apiKey: 'k-1' } }],
    [
      'a bearer token with its tenant',
      { bearerToken: b64('t-1'), tenantId: b64('ws-1') },
      { key: { bearerToken: 't-1', tenantId: 'ws-1' } },
    ],
    [
      'no Secret',
      undefined,
      {
        reason: 'WaitingForCredentials',
        problem: 'verification credentials Secret v (spec.verification.credentialsSecretRef) not found',
      },
    ],
    [
      'no key in it',
      { other: b64('x') },
      {
        reason: 'InvalidCredentials',
        problem:
          'verification credentials Secret v (spec.verification.credentialsSecretRef): either apiKey or bearerToken is required',
      },
    ],
    [
      'a bearer token alone',
      { bearerToken: b64('t-1') },
      {
        reason: 'InvalidCredentials',
        problem:
          'verification credentials Secret v (spec.verification.credentialsSecretRef): a bearer token must come with a tenantId',
      },
    ],
    [
      'a key with a space (never quoted)',
      { apiKey: b64('secret value') },
      {
        reason: 'InvalidCredentials',
        problem:
          'verification credentials Secret v (spec.verification.credentialsSecretRef): apiKey must be non-empty printable ASCII',
      },
    ],
  ])('%s', (_case, data, read) => {
    expect(readVerificationKey('v', data)).toEqual(read);
  });
});

describe('verificationCaller (issue 52, hole 1)', () => {
  const credentials = { baseUrl: 'https://cp.example.com', apiKey: 'controller-key' };
  const own = { key: { apiKey: 'own' } };
  it.each<
    [string, 'platform' | 'namespace', 'controller' | 'namespace', boolean, string, string | undefined]
  >([
    ['platform URL, controller credentials', 'platform', 'controller', false, 'controller', 'controller-key'],
    ['platform URL, namespace credentials', 'platform', 'namespace', false, 'namespace', 'controller-key'],
    ['customUrl, controller credentials: no key', 'namespace', 'controller', false, 'keyless', undefined],
    ['customUrl, namespace credentials: no key', 'namespace', 'namespace', false, 'keyless', undefined],
    ['customUrl, a verification key: that key', 'namespace', 'controller', true, 'namespace', 'own'],
    ['platform URL, a verification key: that key', 'platform', 'controller', true, 'namespace', 'own'],
  ])('%s', (_case, urlChosenBy, credentialsOwner, named, kind, apiKey) => {
    const caller = verificationCaller({
      urlChosenBy,
      credentials,
      credentialsOwner,
      verificationKey: named ? own : undefined,
    });
    expect(caller.kind).toBe(kind);
    expect('key' in caller ? caller.key.apiKey : undefined).toBe(apiKey);
  });
});
