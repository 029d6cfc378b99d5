import { describe, expect, it } from 'vitest';
import { Annotation } from '../../../api/names.ts';
import { facts } from '../facts.test-support.ts';
import { defaultCredentialsScope } from './default-credentials-scope.ts';

const refused = { allowed: false as const, message: 'namespace team-a may not use the default credentials' };

describe('gate defaultCredentialsScope', () => {
  it.each<[string, Parameters<typeof facts>[0], RegExp | undefined]>([
    ['default credentials, namespace allowed', {}, undefined],
    [
      'default credentials, namespace not allowed: stalled before any call',
      { settings: { ...facts().settings, defaultCredentialsScope: refused } },
      /may not use the default credentials$/,
    ],
    [
      'its own credentials: the scope does not apply',
      {
        spec: { credentialsSecretRef: { name: 'creds' } },
        settings: { ...facts().settings, defaultCredentialsScope: refused },
      },
      undefined,
    ],
    [
      'an adopt annotation is not acted on either, and it says so',
      {
        annotations: { [Annotation.AdoptDeploymentId]: 'd-1' },
        settings: { ...facts().settings, defaultCredentialsScope: refused },
      },
      /annotation is not acted on either/,
    ],
  ])('%s', (_, over, message) => {
    const verdict = defaultCredentialsScope(facts(over));
    if (message === undefined) expect(verdict).toBeUndefined();
    else {
      expect(verdict).toMatchObject({ kind: 'stall', reason: 'DefaultCredentialsNotAllowed' });
      expect(verdict?.kind === 'stall' && verdict.message).toMatch(message);
    }
  });
});
