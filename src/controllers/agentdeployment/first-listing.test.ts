import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import { type Credentials, credentialsKey } from '../../controlplane/credentials.ts';
import { heldWhileListing, recordedDeployments } from './first-listing.ts';

const credentials: Credentials = { baseUrl: 'https://cp.example.com', apiKey: 'k' };
const obj = (name: string, status?: AgentDeployment['status'], deleting = false) =>
  ({
    metadata: { name, namespace: 'ns', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: {},
    ...(status ? { status } : {}),
  }) as unknown as AgentDeployment;

describe('recordedDeployments', () => {
  it.each<[string, AgentDeployment, boolean, string[]]>([
    ['records a deployment, credentials resolve: listed', obj('a', { deploymentId: 'd-a' }), true, ['ns/a']],
    ['records none (new, or a create unanswered): not listed', obj('b', {}), true, []],
    [
      'being deleted (its pass reads first-hand): not listed',
      obj('c', { deploymentId: 'd-c' }, true),
      true,
      [],
    ],
    ['credentials do not resolve: not listed', obj('d', { deploymentId: 'd-d' }), false, []],
  ])('%s', (_name, o, resolves, keys) => {
    const listed = recordedDeployments([o], () => (resolves ? credentials : undefined));
    expect(listed.map((r) => r.key)).toEqual(keys);
  });
});

describe('heldWhileListing', () => {
  const ctx = {} as Parameters<ReturnType<typeof heldWhileListing>>[1];
  it.each<[string, boolean, boolean, string[]]>([
    ['no listing running: the pass runs', false, false, ['ran ns/a']],
    ['its credentials still being listed: held, nothing runs', true, true, ['held ns/a']],
    ['another identity being listed: the pass runs', true, false, ['ran ns/a']],
  ])('%s', async (_name, priming, holds, seen) => {
    const events: string[] = [];
    const reconcile = heldWhileListing(
      async (key) => {
        events.push(`ran ${key}`);
        return {};
      },
      {
        priming,
        holdUntilPrimed: (identity, key) => {
          expect(identity).toBe(credentialsKey(credentials));
          if (holds) events.push(`held ${key}`);
          return holds;
        },
      },
      () => obj('a', { deploymentId: 'd-a' }),
      () => credentials,
    );
    expect(await reconcile('ns/a', ctx)).toEqual({});
    expect(events).toEqual(seen);
  });
});
