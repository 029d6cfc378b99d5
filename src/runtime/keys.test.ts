import { describe, expect, it } from 'vitest';
import { objectKey, splitKey } from './keys.ts';
import { objectPath, resourcePath } from './objects.ts';

describe('keys', () => {
  it.each([
    { namespace: 'ns', name: 'a', key: 'ns/a' },
    { namespace: undefined, name: 'cluster-wide', key: 'cluster-wide' },
  ])('$key round-trips', ({ namespace, name, key }) => {
    expect(objectKey({ metadata: { namespace, name } })).toBe(key);
    expect(splitKey(key)).toEqual({ namespace: namespace ?? '', name });
  });
});

describe('resource paths', () => {
  const agd = { group: 'deploy.agents.dev', version: 'v1alpha1', plural: 'agentdeployments' };
  const cm = { group: '', version: 'v1', plural: 'configmaps' };
  it.each([
    { resource: agd, ns: 'x', expected: '/apis/deploy.agents.dev/v1alpha1/namespaces/x/agentdeployments' },
    { resource: agd, ns: '', expected: '/apis/deploy.agents.dev/v1alpha1/agentdeployments' },
    { resource: cm, ns: 'x', expected: '/api/v1/namespaces/x/configmaps' },
  ])('$resource.plural in "$ns"', ({ resource, ns, expected }) => {
    expect(resourcePath(resource, ns)).toBe(expected);
  });

  it('names the object', () => {
    expect(objectPath({ resource: cm, namespace: 'x', name: 'a' })).toBe('/api/v1/namespaces/x/configmaps/a');
  });
});
