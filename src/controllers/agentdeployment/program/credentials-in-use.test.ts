import type { V1Secret } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import { FINALIZER, CREDENTIALS_IN_USE_FINALIZER as IN_USE } from '../../../api/names.ts';
import { credentialsInUse, needsProtection, secretsToRelease } from './credentials-in-use.ts';

const obj = (
  name: string,
  ref: string | undefined,
  meta: { deleting?: boolean; finalizer?: boolean } = {},
): AgentDeployment =>
  ({
    metadata: {
      name,
      namespace: 'team',
      ...(meta.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      ...(meta.finalizer ? { finalizers: [FINALIZER] } : {}),
    },
    spec: { ...(ref ? { credentialsSecretRef: { name: ref } } : {}) },
  }) as unknown as AgentDeployment;

const secret = (name: string, finalizers: string[] = [], deleting = false): V1Secret => ({
  metadata: {
    name,
    namespace: 'team',
    finalizers,
    ...(deleting ? { deletionTimestamp: new Date('2026-01-01T00:00:00Z') } : {}),
  },
});

describe('credentialsInUse', () => {
  it.each<[string, AgentDeployment[], string | undefined, string[]]>([
    ['an object naming a Secret', [obj('a', 'creds')], undefined, ['creds']],
    ['an object with the default credentials', [obj('a', undefined)], undefined, []],
    [
      'a deleted object still holding its finalizer',
      [obj('a', 'creds', { deleting: true, finalizer: true })],
      undefined,
      ['creds'],
    ],
    ['a deleted object whose finalizer is gone', [obj('a', 'creds', { deleting: true })], undefined, []],
    [
      'the object whose deletion just finished is left out',
      [obj('a', 'creds', { finalizer: true })],
      'team/a',
      [],
    ],
    ['another object still needs it', [obj('a', 'creds'), obj('b', 'creds')], 'team/a', ['creds']],
    ['two Secrets', [obj('a', 'one'), obj('b', 'two')], undefined, ['one', 'two']],
  ])('%s', (_case, objects, exceptKey, want) => {
    expect([...credentialsInUse(objects, exceptKey)].sort()).toEqual(want);
  });
});

describe('needsProtection', () => {
  it.each<[string, V1Secret | undefined, boolean]>([
    ['a Secret without the finalizer', secret('creds'), true],
    ['a Secret with another finalizer', secret('creds', ['other']), true],
    ['a Secret that has it', secret('creds', [IN_USE]), false],
    ['a Secret being deleted (no finalizer can be added)', secret('creds', [], true), false],
    ['no Secret', undefined, false],
  ])('%s', (_case, s, want) => {
    expect(needsProtection(s)).toBe(want);
  });
});

describe('secretsToRelease', () => {
  it.each<[string, V1Secret[], string[], string[]]>([
    ['held and no longer named', [secret('old', [IN_USE])], [], ['old']],
    ['held and still named', [secret('creds', [IN_USE])], ['creds'], []],
    ['not held', [secret('plain')], [], []],
    ['held while being deleted, no longer named', [secret('old', [IN_USE, 'other'], true)], [], ['old']],
  ])('%s', (_case, secrets, inUse, want) => {
    expect(secretsToRelease(secrets, new Set(inUse)).map((s) => s.metadata?.name)).toEqual(want);
  });
});
