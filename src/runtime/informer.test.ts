import { describe, expect, it } from 'vitest';
import { namespacedPath } from './informer.ts';

describe('namespacedPath', () => {
  it.each([
    { path: '/api/v1/secrets', ns: 'team-a', expected: '/api/v1/namespaces/team-a/secrets' },
    { path: '/api/v1/secrets', ns: '', expected: '/api/v1/secrets' },
    {
      path: '/apis/deploy.agents.dev/v1alpha1/agentdeployments',
      ns: 'x',
      expected: '/apis/deploy.agents.dev/v1alpha1/namespaces/x/agentdeployments',
    },
  ])('$path in "$ns"', ({ path, ns, expected }) => {
    expect(namespacedPath(path, ns)).toBe(expected);
  });
});
