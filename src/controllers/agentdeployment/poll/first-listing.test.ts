import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import { type Credentials, credentialsKey } from '../../../controlplane/credentials.ts';
import { projectAgentDeployment } from '../cache/projection.ts';
import { heldWhileListing, recordedDeployments, settledAtGeneration } from './first-listing.ts';

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

describe('settledAtGeneration: which objects of a takeover pass without a token', () => {
  const NOW = new Date('2026-11-25T20:00:00Z');
  const ready = (generation: number) => ({
    type: 'Ready',
    status: 'True' as const,
    reason: 'Ready',
    message: '',
    lastTransitionTime: '2026-11-25T19:00:00Z',
    observedGeneration: generation,
  });
  const settled = {
    metadata: { name: 'a', namespace: 'ns', generation: 3 },
    spec: {},
    status: { deploymentId: 'd-a', latestRevisionId: 'r-1', observedGeneration: 3, conditions: [ready(3)] },
  } as unknown as AgentDeployment;
  const change = (f: (o: AgentDeployment) => void) => {
    const o = structuredClone(settled);
    f(o);
    return o;
  };
  const status = (o: AgentDeployment) => o.status as NonNullable<AgentDeployment['status']>;
  it.each<[string, AgentDeployment, boolean]>([
    ['Ready at its generation, its deployment recorded: settled', settled, true],
    [
      'a spec change not observed yet (generation ahead)',
      change((o) => {
        o.metadata.generation = 4;
      }),
      false,
    ],
    [
      'Ready, but at an older generation',
      change((o) => {
        status(o).conditions = [ready(2)];
      }),
      false,
    ],
    [
      'not Ready (a revision in progress, a failure)',
      change((o) => {
        status(o).conditions = [{ ...ready(3), status: 'False' as const }];
      }),
      false,
    ],
    [
      'a create pending (its answer not recorded)',
      change((o) => {
        status(o).createPendingSince = '2026-11-25T19:59:00Z';
      }),
      false,
    ],
    [
      'no deployment recorded',
      change((o) => {
        status(o).deploymentId = undefined;
      }),
      false,
    ],
    [
      'being deleted',
      change((o) => {
        o.metadata.deletionTimestamp = '2026-11-25T19:59:00Z';
      }),
      false,
    ],
    [
      'a reconcile requested and not handled',
      change((o) => {
        o.metadata.annotations = { 'deploy.agents.dev/reconcile-requested-at': 'now' };
      }),
      false,
    ],
    [
      'a reconcile request already handled',
      change((o) => {
        o.metadata.annotations = { 'deploy.agents.dev/reconcile-requested-at': 'then' };
        status(o).lastHandledReconcileAt = 'then';
      }),
      true,
    ],
    [
      'a redeploy requested and not handled',
      change((o) => {
        o.metadata.annotations = { 'deploy.agents.dev/redeploy-requested-at': 'now' };
      }),
      false,
    ],
    [
      'a verification run in flight',
      change((o) => {
        status(o).verification = {
          revisionId: 'r-1',
          specDigest: 'x',
          current: { runId: 'run', threadId: 't', startedAt: '2026-11-25T19:59:00Z' },
        };
      }),
      false,
    ],
    [
      'a verification due',
      change((o) => {
        status(o).verification = {
          revisionId: 'r-1',
          specDigest: 'x',
          nextVerificationAt: '2026-11-25T19:59:00Z',
        };
      }),
      false,
    ],
    [
      'a verification due later',
      change((o) => {
        status(o).verification = {
          revisionId: 'r-1',
          specDigest: 'x',
          nextVerificationAt: '2026-11-25T21:00:00Z',
        };
      }),
      true,
    ],
  ])('%s: %s', (_name, o, expected) => {
    expect(settledAtGeneration(o, NOW)).toBe(expected);
    // A key a replica gains is cached as a projection until its pass reads it: the same answer.
    expect(settledAtGeneration(projectAgentDeployment(o), NOW)).toBe(expected);
  });
});
