/** Whether an import reproduces its deployment: the schema keeps it whole and the controller sends nothing. */
import { describe, expect, it } from 'vitest';
import { Annotation } from '../api/names.ts';
import type { Deployment } from '../controlplane/schemas.ts';
import { droppedPaths, expressibilityProblems } from './expressible.ts';
import { importDeployment, placeholderFor } from './manifests.ts';

const base: Deployment = {
  id: '0b4f6a3e-8a4d-4e6f-9b7a-1c2d3e4f5a6b',
  name: 'research-agent',
  source: 'external_image',
  source_config: {
    listener_id: 'l-1',
    resource_spec: {
      cpu: 1,
      cpu_limit: 2,
      sidecars: [{ name: 'log', image: 'fluent-bit:3', env: [{ name: 'A', value: '' }] }],
    },
  },
  source_revision_config: { image_uri: 'reg/agent:1' },
  secrets: [{ name: 'TOKEN', value: '********' }],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'r-1',
  active_revision_id: 'r-1',
};
const rs = base.source_config.resource_spec ?? {};

describe('expressibilityProblems', () => {
  it.each<[string, Partial<Deployment>, RegExp | undefined]>([
    ['masked secrets, defaults, a sidecar: expressible', {}, undefined],
    ['revealed secrets: expressible', { secrets: [{ name: 'TOKEN', value: 'plain' }] }, undefined],
    ['no secrets: expressible', { secrets: [] }, undefined],
    ['being deleted', { status: 'AWAITING_DELETE' }, /deleting it/],
    [
      'a secret name that is not a C identifier',
      { secrets: [{ name: 'MY-TOKEN', value: 'x' }] },
      /not a C identifier/,
    ],
    [
      'a do-not-use field',
      { source_config: { ...base.source_config, resource_spec: { ...rs, orchestrator_cpu: 1 } } },
      /orchestrator_cpu.*do not use/,
    ],
    [
      'a resource_spec field the schema does not have',
      { source_config: { ...base.source_config, resource_spec: { ...rs, gpu_count: 1 } } },
      /spec\.sourceConfig\.resourceSpec\.gpuCount has no place/,
    ],
    [
      'a container field the document does not list',
      {
        source_config: {
          ...base.source_config,
          resource_spec: { sidecars: [{ name: 'log', image: 'x', livenessProbe: { exec: {} } }] },
        },
      },
      /resource_spec\.sidecars cannot be stated/,
    ],
    ['a name no object name can be made of', { name: '***' }, /no Kubernetes object name/],
  ])('%s', (_, change, problem) => {
    const problems = expressibilityProblems(importDeployment({ ...base, ...change }, 'team-a'));
    if (problem) expect(problems.join('; ')).toMatch(problem);
    else expect(problems).toEqual([]);
  });

  it('the object adopts the id, in the namespace, with the secrets from a Secret (placeholders when masked)', () => {
    const imported = importDeployment({ ...base, name: 'Research_Agent' }, 'team-a');
    expect(imported.agentDeployment.metadata).toEqual({
      name: 'research-agent',
      namespace: 'team-a',
      annotations: { [Annotation.AdoptDeploymentId]: base.id },
    });
    expect(imported.agentDeployment.spec.name).toBe('Research_Agent');
    expect(imported.agentDeployment.spec.secretsFrom).toEqual([
      { secretRef: { name: 'research-agent-secrets' } },
    ]);
    expect(imported.secret?.stringData).toEqual({ TOKEN: placeholderFor('TOKEN') });
    expect(imported.masked).toEqual(['TOKEN']);
  });
});

describe('droppedPaths', () => {
  it.each<[string, unknown, unknown, string[]]>([
    ['same', { a: { b: 1 } }, { a: { b: 1 }, c: 2 }, []],
    ['a key pruned', { a: { b: 1, x: 2 } }, { a: { b: 1 } }, ['spec.a.x']],
    ['inside a list', { a: [{ b: 1 }, { y: 1 }] }, { a: [{ b: 1 }, {}] }, ['spec.a[1].y']],
  ])('%s', (_, given, kept, paths) => {
    expect(droppedPaths(given, kept)).toEqual(paths);
  });
});
