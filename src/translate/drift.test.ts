import { describe, expect, it } from 'vitest';
import type { Deployment, DeploymentCreateRequest } from '../controlplane/schemas.ts';
import { computeDrift, type DriftInput, sameValue } from './drift.ts';

const observedBase: Deployment = {
  id: 'd-1',
  name: 'agent',
  source: 'external_image',
  source_config: {
    custom_url: null,
    listener_id: 'l-1',
    resource_spec: {
      cpu: 1,
      cpu_limit: 2,
      memory_mb: 512,
      memory_limit_mb: 1024,
      queue_cpu: 1,
      queue_cpu_limit: 2,
      queue_memory_mb: 512,
      queue_memory_limit_mb: 1024,
    },
  },
  source_revision_config: { image_uri: 'registry.local/agent:1', repo_ref: null, graph_config_path: null },
  secrets: [{ name: 'OPENAI_API_KEY', value: '********' }],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'r-1',
  active_revision_id: 'r-1',
};

const desiredBase: DeploymentCreateRequest = {
  name: 'agent',
  source: 'external_image',
  source_config: { listener_id: 'l-1', resource_spec: { cpu: 1, memory_mb: 512 } },
  source_revision_config: { image_uri: 'registry.local/agent:1' },
  secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-secret' }],
};

function input(overrides: {
  desired?: Partial<DeploymentCreateRequest>;
  observed?: Partial<Deployment>;
  secretsApplied?: string | null;
  unechoedApplied?: string;
  adoptUnrevealedSecrets?: boolean;
}): DriftInput {
  const applied =
    overrides.secretsApplied === null ? {} : { applied: overrides.secretsApplied ?? 'digest-a' };
  return {
    desired: { ...desiredBase, ...overrides.desired },
    observed: { ...observedBase, ...overrides.observed },
    secretsDigest: { desired: 'digest-a', ...applied },
    unechoedDigest: { desired: 'u-a', applied: overrides.unechoedApplied ?? 'u-a' },
    ...(overrides.adoptUnrevealedSecrets ? { adoptUnrevealedSecrets: true } : {}),
  };
}

/** The observed deployment with extra resource_spec fields, as the platform would hold them. */
function observedWith(extra: Record<string, unknown>): Partial<Deployment> {
  return {
    source_config: {
      ...observedBase.source_config,
      resource_spec: { ...observedBase.source_config.resource_spec, ...extra },
    },
  };
}

function desiredWith(extra: Record<string, unknown>): Partial<DeploymentCreateRequest> {
  return { source_config: { listener_id: 'l-1', resource_spec: { cpu: 1, memory_mb: 512, ...extra } } };
}

describe('computeDrift', () => {
  it('finds nothing when the observed deployment matches after normalisation', () => {
    const result = computeDrift(input({}));
    expect(result).toEqual({ immutable: [], changed: [], createsRevision: false, secrets: 'same' });
  });

  it.each<[string, Parameters<typeof input>[0], unknown, string[], boolean]>([
    [
      'image changed: revision field only',
      { desired: { source_revision_config: { image_uri: 'registry.local/agent:2' } } },
      { source_revision_config: { image_uri: 'registry.local/agent:2' } },
      ['source_revision_config.image_uri'],
      true,
    ],
    [
      'one resource_spec part changed: the whole desired resource_spec is sent',
      { desired: { source_config: { listener_id: 'l-1', resource_spec: { cpu: 2, memory_mb: 512 } } } },
      { source_config: { resource_spec: { cpu: 2, memory_mb: 512 } } },
      [
        'source_config.resource_spec.cpu',
        'source_config.resource_spec.cpu_limit',
        'source_config.resource_spec.queue_cpu',
        'source_config.resource_spec.queue_cpu_limit',
      ],
      true,
    ],
    [
      'secret rotated: digest differs, all secrets sent',
      { secretsApplied: 'digest-old' },
      { secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-secret' }] },
      ['secrets'],
      true,
    ],
    [
      'non-revision field: custom_url',
      {
        desired: {
          source_config: {
            listener_id: 'l-1',
            custom_url: 'https://agent.example.com',
            resource_spec: { cpu: 1, memory_mb: 512 },
          },
        },
      },
      { source_config: { custom_url: 'https://agent.example.com' } },
      ['source_config.custom_url'],
      false,
    ],
    [
      'unechoed field changed: compared through the applied digest',
      {
        desired: {
          source_config: {
            listener_id: 'l-1',
            install_command: 'npm ci',
            resource_spec: { cpu: 1, memory_mb: 512 },
          },
        },
        unechoedApplied: 'u-old',
      },
      { source_config: { install_command: 'npm ci' } },
      ['source_config.install_command'],
      false,
    ],
  ])('%s', (_name, overrides, patch, changed, createsRevision) => {
    const result = computeDrift(input(overrides));
    expect(result.immutable).toEqual([]);
    expect(result.patch).toEqual(patch);
    expect(result.changed).toEqual(changed);
    expect(result.createsRevision).toBe(createsRevision);
  });

  it('does not correct an unechoed field when the applied digest matches', () => {
    const result = computeDrift(
      input({
        desired: {
          source_config: {
            listener_id: 'l-1',
            install_command: 'npm ci',
            resource_spec: { cpu: 1, memory_mb: 512 },
          },
        },
      }),
    );
    expect(result.patch).toBeUndefined();
  });

  it('sees a secret removed behind the operator by name', () => {
    const result = computeDrift(input({ observed: { secrets: [] } }));
    expect(result.patch).toEqual({ secrets: desiredBase.secrets });
  });

  it('reports removing every secret as unsupported, never as a patch', () => {
    const result = computeDrift(input({ desired: { secrets: [] }, secretsApplied: 'digest-old' }));
    expect(result.patch).toBeUndefined();
    expect(result.secrets).toBe('removeAllUnsupported');
  });

  it.each<[string, Record<string, unknown>]>([
    ['sidecar', { sidecars: [{ name: 'proxy', image: 'proxy:1' }] }],
    ['init container', { init_containers: [{ name: 'init', image: 'init:1' }] }],
    ['volume', { volumes: [{ name: 'data', emptyDir: {} }] }],
    ['volume mount', { volume_mounts: [{ name: 'data', mountPath: '/data' }] }],
    ['label', { labels: { team: 'x' } }],
    ['image pull secret', { image_pull_secrets: [{ name: 'registry' }] }],
  ])('a %s the object no longer states is drift, and resource_spec is sent whole', (_name, extra) => {
    const result = computeDrift(input({ observed: observedWith(extra) }));
    expect(result.changed).toEqual(Object.keys(extra).map((k) => `source_config.resource_spec.${k}`));
    expect(result.patch).toEqual({ source_config: { resource_spec: { cpu: 1, memory_mb: 512 } } });
    expect(result.createsRevision).toBe(true);
  });

  it('a removed env var in a sidecar is drift', () => {
    const sidecar = { name: 'proxy', image: 'proxy:1' };
    const result = computeDrift(
      input({
        desired: desiredWith({ sidecars: [{ ...sidecar, env: [{ name: 'A', value: '1' }] }] }),
        observed: observedWith({
          sidecars: [
            {
              ...sidecar,
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
            },
          ],
        }),
      }),
    );
    expect(result.changed).toEqual(['source_config.resource_spec.sidecars']);
  });

  it('the server echoing value "" for a valueFrom env var is not drift', () => {
    const valueFrom = { secretKeyRef: { name: 's', key: 'k' } };
    const sidecar = { name: 'proxy', image: 'proxy:1' };
    const result = computeDrift(
      input({
        desired: desiredWith({ sidecars: [{ ...sidecar, env: [{ name: 'A', valueFrom }, { name: 'B' }] }] }),
        observed: observedWith({
          sidecars: [
            {
              ...sidecar,
              env: [
                { name: 'A', value: '', valueFrom },
                { name: 'B', value: '', valueFrom: null },
              ],
            },
          ],
          labels: {},
        }),
      }),
    );
    expect(result.patch).toBeUndefined();
  });

  it.each<[string, Parameters<typeof input>[0], string, boolean]>([
    [
      'adoption, masked values: taken as current',
      { secretsApplied: null, adoptUnrevealedSecrets: true },
      'takenAsCurrent',
      false,
    ],
    ['no applied digest and not adopting: patched', { secretsApplied: null }, 'changed', true],
    [
      'adoption, revealed and equal: same',
      {
        secretsApplied: null,
        adoptUnrevealedSecrets: true,
        observed: { secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-secret' }] },
      },
      'same',
      false,
    ],
    [
      'adoption, revealed and different: patched',
      {
        secretsApplied: null,
        adoptUnrevealedSecrets: true,
        observed: { secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-other' }] },
      },
      'changed',
      true,
    ],
    [
      'adoption, a name differs: patched',
      {
        secretsApplied: null,
        adoptUnrevealedSecrets: true,
        observed: { secrets: [{ name: 'OTHER', value: '********' }] },
      },
      'changed',
      true,
    ],
  ])('secrets: %s', (_name, overrides, comparison, patched) => {
    const result = computeDrift(input(overrides));
    expect(result.secrets).toBe(comparison);
    expect(result.patch !== undefined).toBe(patched);
  });

  it.each<[string, Parameters<typeof input>[0], string]>([
    ['name', { desired: { name: 'other' } }, 'name'],
    ['source', { desired: { source: 'repo_host' } }, 'source'],
    ['listener_id', { desired: { source_config: { listener_id: 'l-2' } } }, 'source_config.listener_id'],
    [
      'listener namespace, when echoed',
      {
        desired: { source_config: { listener_id: 'l-1', listener_config: { k8s_namespace: 'b' } } },
        observed: {
          source_config: { ...observedBase.source_config, listener_config: { k8s_namespace: 'a' } },
        },
      },
      'source_config.listener_config.k8s_namespace',
    ],
  ])('refuses an immutable change: %s', (_name, overrides, field) => {
    const result = computeDrift(input(overrides));
    expect(result.immutable.map((d) => d.field)).toContain(field);
    expect(result.patch).toBeUndefined();
  });

  it('does not compare the listener namespace when the service does not echo it', () => {
    const result = computeDrift(
      input({
        desired: {
          source_config: {
            listener_id: 'l-1',
            listener_config: { k8s_namespace: 'b' },
            resource_spec: { cpu: 1, memory_mb: 512 },
          },
        },
      }),
    );
    expect(result.immutable).toEqual([]);
  });
});

describe('sameValue', () => {
  it.each<[unknown, unknown, boolean]>([
    [null, undefined, true],
    [{ a: 1, b: null }, { a: 1 }, true],
    [[{ name: 'x', readOnly: null }], [{ name: 'x' }], true],
    [[1, 2], [2, 1], false],
    [{ a: { b: 1 } }, { a: { b: 2 } }, false],
    ['1', 1, false],
  ])('%j vs %j -> %s', (a, b, expected) => {
    expect(sameValue(a, b)).toBe(expected);
  });
});
