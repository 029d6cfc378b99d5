/** The reverse translation, table-driven: the platform's shapes back to the spec, and round trips. */
import { describe, expect, it } from 'vitest';
import type { ResourceSpec as SpecResourceSpec } from '../api/resource-spec.ts';
import type { Deployment, ResourceSpec } from '../controlplane/schemas.ts';
import { normaliseResourceSpec } from '../translate/normalise.ts';
import { toCreateRequest, toResourceSpec } from '../translate/request.ts';
import { fromDeployment, fromResourceSpec, unechoedFields } from './reverse.ts';

describe('fromResourceSpec: the platform stored this, the spec states that', () => {
  it.each<[string, ResourceSpec, SpecResourceSpec]>([
    [
      'limits at twice the requests are left out',
      { cpu: 1, cpu_limit: 2, memory_mb: 512, memory_limit_mb: 1024 },
      { cpu: 1, memoryMb: 512 },
    ],
    [
      'limits set apart from the default are kept',
      { cpu: 1, cpu_limit: 3, memory_mb: 512, memory_limit_mb: 600 },
      { cpu: 1, cpuLimit: 3, memoryMb: 512, memoryLimitMb: 600 },
    ],
    ['a rounded limit that is the default is left out', { cpu: 0.3, cpu_limit: 0.6 }, { cpu: 0.3 }],
    [
      'queue values copied from their bases are left out',
      {
        min_scale: 1,
        max_scale: 3,
        queue_min_scale: 1,
        queue_max_scale: 3,
        cpu: 2,
        cpu_limit: 4,
        queue_cpu: 2,
        queue_cpu_limit: 4,
        memory_mb: 256,
        memory_limit_mb: 512,
        queue_memory_mb: 256,
        queue_memory_limit_mb: 512,
      },
      { minScale: 1, maxScale: 3, cpu: 2, memoryMb: 256 },
    ],
    [
      'a queue value of its own is kept, and its limit default left out',
      { cpu: 1, cpu_limit: 2, queue_cpu: 0.5, queue_cpu_limit: 1 },
      { cpu: 1, queueCpu: 0.5 },
    ],
    [
      'db limits at twice are left out',
      { db_cpu: 1, db_cpu_limit: 2, db_memory_mb: 100, db_memory_limit_mb: 200 },
      { dbCpu: 1, dbMemoryMb: 100 },
    ],
    [
      'nulls and empty lists are absent',
      { cpu: null, labels: {}, volumes: [], sidecars: null, min_scale: 2 },
      { minScale: 2 },
    ],
    [
      "an env var's default value is left out, nulls inside dropped, emptyDir kept",
      {
        volumes: [{ name: 'scratch', emptyDir: {} }],
        sidecars: [
          {
            name: 'log',
            image: 'fluent-bit:3',
            env: [
              { name: 'A', value: '' },
              { name: 'B', value: 'b', valueFrom: null },
              { name: 'C', value: '', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
            ],
            resources: { limits: { cpu: '200m' }, requests: null },
          },
        ],
      },
      {
        volumes: [{ name: 'scratch', emptyDir: {} }],
        sidecars: [
          {
            name: 'log',
            image: 'fluent-bit:3',
            env: [
              { name: 'A' },
              { name: 'B', value: 'b' },
              { name: 'C', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
            ],
            resources: { limits: { cpu: '200m' } },
          },
        ],
      },
    ],
    [
      'labels, annotations, pull secrets and mounts are kept as stored',
      {
        labels: { team: 'a' },
        annotations: { x: 'y' },
        image_pull_secrets: [{ name: 'reg' }],
        service_account_name: 'sa',
        volumes: [{ name: 'v', configMap: { name: 'cm' } }],
        volume_mounts: [{ name: 'v', mountPath: '/v', readOnly: true }],
      },
      {
        labels: { team: 'a' },
        annotations: { x: 'y' },
        imagePullSecrets: [{ name: 'reg' }],
        serviceAccountName: 'sa',
        volumes: [{ name: 'v', configMap: { name: 'cm' } }],
        volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: true }],
      },
    ],
  ])('%s', (_, stored, spec) => {
    expect(fromResourceSpec(stored)).toEqual(spec);
  });
});

describe('round trips: native -> control plane (as stored) -> native', () => {
  it.each<[string, SpecResourceSpec]>([
    ['scalars only', { minScale: 2, maxScale: 4, cpu: 1, memoryMb: 2048 }],
    [
      'limits of their own',
      { cpu: 0.5, cpuLimit: 4, memoryMb: 128, memoryLimitMb: 1000, queueCpu: 0.2, queueCpuLimit: 1 },
    ],
    [
      'volumes, mounts, init containers and sidecars',
      {
        cpu: 1,
        volumes: [
          { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
          { name: 'creds', secret: { secretName: 'creds', items: [{ key: 'a', path: 'a' }] } },
        ],
        volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
        initContainers: [
          {
            name: 'migrate',
            image: 'migrate:1',
            command: ['sh', '-c', 'true'],
            volumeMounts: [{ name: 'creds', mountPath: '/creds', readOnly: true }],
          },
        ],
        sidecars: [
          {
            name: 'proxy',
            image: 'proxy:2',
            restartPolicy: 'Always',
            env: [
              { name: 'MODE', value: 'fast' },
              { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } },
            ],
            envFrom: [{ secretRef: { name: 'creds' } }],
            resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m' } },
            securityContext: { runAsNonRoot: true },
          },
        ],
        labels: { team: 'research' },
        imagePullSecrets: [{ name: 'registry' }],
      },
    ],
  ])('%s', (_, spec) => {
    const stored = normaliseResourceSpec(toResourceSpec(spec));
    expect(fromResourceSpec(stored)).toEqual(spec);
    // And the way back again gives what the platform stores.
    expect(normaliseResourceSpec(toResourceSpec(fromResourceSpec(stored)))).toEqual(stored);
  });
});

const base: Deployment = {
  id: 'd-1',
  name: 'agent',
  source: 'external_image',
  source_config: {
    listener_id: 'l-1',
    custom_url: 'https://agent.example.com',
    resource_spec: { cpu: 1, cpu_limit: 2 },
  },
  source_revision_config: { image_uri: 'reg/agent:1', repo_ref: null, graph_config_path: null },
  secrets: [],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'r-1',
  active_revision_id: 'r-1',
};

describe('fromDeployment', () => {
  it.each<[string, Partial<Deployment>, unknown]>([
    [
      'external_image: listener, custom URL, resources',
      {},
      {
        source: 'external_image',
        sourceConfig: { listenerId: 'l-1', customUrl: 'https://agent.example.com', resourceSpec: { cpu: 1 } },
        sourceRevisionConfig: { imageUri: 'reg/agent:1' },
      },
    ],
    [
      "repo_host: the platform's own URL and the commit stay behind",
      {
        source: 'repo_host',
        source_config: {
          integration_id: 'i-1',
          repo_url: 'https://git/x',
          deployment_type: 'dev',
          build_on_push: true,
          custom_url: 'https://auto',
          resource_spec: null,
        },
        source_revision_config: {
          repo_ref: 'main',
          graph_config_path: 'langgraph.json',
          repo_commit_sha: 'abc',
          image_uri: null,
        },
      },
      {
        source: 'repo_host',
        sourceConfig: {
          integrationId: 'i-1',
          repoUrl: 'https://git/x',
          deploymentType: 'dev',
          buildOnPush: true,
        },
        sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
      },
    ],
    [
      'echoed listener config and commands are kept',
      {
        source_config: {
          listener_id: 'l-1',
          listener_config: { k8s_namespace: 'agents' },
          install_command: 'npm ci',
          build_command: null,
        },
      },
      {
        source: 'external_image',
        sourceConfig: {
          listenerId: 'l-1',
          listenerConfig: { k8sNamespace: 'agents' },
          installCommand: 'npm ci',
        },
        sourceRevisionConfig: { imageUri: 'reg/agent:1' },
      },
    ],
  ])('%s', (_, change, spec) => {
    expect(fromDeployment({ ...base, ...change })).toEqual(spec);
  });

  it('the way back: the imported spec asks for what the platform has', () => {
    const spec = { ...fromDeployment(base), deletionPolicy: 'Delete' as const, progressDeadline: '30m' };
    const request = toCreateRequest(spec, 'agent', []);
    expect(request.source_config).toEqual({
      listener_id: 'l-1',
      custom_url: 'https://agent.example.com',
      resource_spec: { cpu: 1 },
    });
  });

  it.each<[string, Partial<Deployment>, string[]]>([
    [
      'nothing echoed (external_image)',
      {},
      ['source_config.install_command', 'source_config.build_command', 'source_config.listener_config'],
    ],
    [
      'repo_host has no listener',
      { source: 'repo_host' },
      ['source_config.install_command', 'source_config.build_command'],
    ],
    [
      'echoed as null: known to be unset',
      { source_config: { install_command: null, build_command: null, listener_config: null } },
      [],
    ],
  ])('unechoed fields: %s', (_, change, fields) => {
    expect(unechoedFields({ ...base, ...change })).toEqual(fields);
  });
});
