import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import { Annotation } from '../../../api/names.ts';
import { type CachedAgentDeployment, projectAgentDeployment } from '../cache/projection.ts';
import { changedEnough, releasesName } from './wakeups.ts';

const object = (
  metadata: Partial<AgentDeployment['metadata']> = {},
  spec: Partial<AgentDeployment['spec']> = {},
  status: AgentDeployment['status'] = {},
): AgentDeployment =>
  ({
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name: 'agent', namespace: 'team', generation: 1, resourceVersion: '1', ...metadata },
    spec: { name: 'agent-deployment', source: 'external_image', ...spec },
    status,
  }) as unknown as AgentDeployment;

const projected = (obj: AgentDeployment) => projectAgentDeployment(obj);

describe('changedEnough', () => {
  it.each<{ name: string; before: CachedAgentDeployment; after: CachedAgentDeployment; expected: boolean }>([
    { name: 'full, generation', before: object(), after: object({ generation: 2 }), expected: true },
    { name: 'full, label', before: object(), after: object({ labels: { a: 'b' } }), expected: true },
    {
      name: 'full, version only',
      before: object(),
      after: object({ resourceVersion: '2' }),
      expected: false,
    },
    { name: 'to a projection, same object', before: object(), after: projected(object()), expected: false },
    { name: 'from a projection, same object', before: projected(object()), after: object(), expected: false },
    {
      name: 'projection, label (not kept)',
      before: projected(object()),
      after: projected(object({ labels: { a: 'b' } })),
      expected: false,
    },
    {
      name: 'projection, generation',
      before: projected(object()),
      after: projected(object({ generation: 2 })),
      expected: true,
    },
    {
      name: 'projection, deletion',
      before: projected(object()),
      after: object({ deletionTimestamp: new Date('2026-01-01T00:00:00Z') }),
      expected: true,
    },
    {
      name: 'projection, adopt annotation',
      before: object(),
      after: projected(object({ annotations: { [Annotation.AdoptDeploymentId]: 'dep-1' } })),
      expected: true,
    },
  ])('$name -> $expected', ({ before, after, expected }) => {
    expect(changedEnough(before, after)).toBe(expected);
  });
});

describe('releasesName', () => {
  const pending = { createPendingSince: '2026-01-01T00:00:00Z' };
  it.each<{ name: string; before: AgentDeployment; after: AgentDeployment; expected: boolean }>([
    { name: 'same name', before: object(), after: object(), expected: false },
    { name: 'another name', before: object(), after: object({}, { name: 'other' }), expected: true },
    { name: 'stood down from a create', before: object({}, {}, pending), after: object(), expected: true },
    {
      name: 'the create landed',
      before: object({}, {}, pending),
      after: object({}, {}, { deploymentId: 'dep-1' }),
      expected: false,
    },
    {
      name: 'still pending',
      before: object({}, {}, pending),
      after: object({}, {}, pending),
      expected: false,
    },
  ])('$name -> $expected', ({ before, after, expected }) => {
    expect(releasesName(before, after)).toBe(expected);
  });
});
