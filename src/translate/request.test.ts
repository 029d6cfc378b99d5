import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { AgentDeployment, type AgentDeploymentSpec } from '../api/agentdeployment.ts';
import { AGENT_DEPLOYMENT } from '../api/group.ts';
import { SourceConfigRequest } from '../controlplane/schemas.ts';
import { checkRequestFields } from '../simulator/deployment-rules.ts';
import { toCreateRequest, toSourceConfig } from './request.ts';

describe('toCreateRequest', () => {
  it('maps a repo_host spec to the document shapes', () => {
    const spec: AgentDeploymentSpec = {
      source: 'repo_host',
      deletionPolicy: 'Delete',
      progressDeadline: '30m',
      sourceConfig: {
        integrationId: 'i-1',
        repoUrl: 'https://git.example.com/a/b',
        deploymentType: 'dev',
        buildOnPush: true,
      },
      sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
    };
    expect(toCreateRequest(spec, 'agent', [])).toEqual({
      name: 'agent',
      source: 'repo_host',
      source_config: {
        integration_id: 'i-1',
        repo_url: 'https://git.example.com/a/b',
        deployment_type: 'dev',
        build_on_push: true,
      },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
      secrets: [],
    });
  });

  it('turns native Kubernetes types into the resource_spec shapes', () => {
    const spec: AgentDeploymentSpec = {
      source: 'external_image',
      deletionPolicy: 'Delete',
      progressDeadline: '30m',
      sourceConfig: {
        listenerId: 'l-1',
        listenerConfig: { k8sNamespace: 'agents' },
        resourceSpec: {
          minScale: 1,
          cpu: 0.5,
          memoryMb: 1024,
          imagePullSecrets: [{ name: 'regcred' }],
          volumes: [{ name: 'cache', emptyDir: {} }],
          volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
          sidecars: [
            {
              name: 'proxy',
              image: 'envoy:1',
              resources: { limits: { cpu: '500m', memory: 256 } },
              volumeMounts: [{ name: 'cache', mountPath: '/c', readOnly: true }],
            },
          ],
        },
      },
      sourceRevisionConfig: { imageUri: 'registry.local/agent:1' },
    };
    const request = toCreateRequest(spec, 'agent', [{ name: 'A', value: 'x' }]);
    expect(request.source_config).toEqual({
      listener_id: 'l-1',
      listener_config: { k8s_namespace: 'agents' },
      resource_spec: {
        min_scale: 1,
        cpu: 0.5,
        memory_mb: 1024,
        image_pull_secrets: [{ name: 'regcred' }],
        volumes: [{ name: 'cache', emptyDir: {} }],
        volume_mounts: [{ name: 'cache', mountPath: '/cache' }],
        sidecars: [
          {
            name: 'proxy',
            image: 'envoy:1',
            resources: { limits: { cpu: '500m', memory: '256' } },
            volumeMounts: [{ name: 'cache', mountPath: '/c', readOnly: true }],
          },
        ],
      },
    });
    expect(request.source_revision_config).toEqual({ image_uri: 'registry.local/agent:1' });
    expect(request.secrets).toEqual([{ name: 'A', value: 'x' }]);
  });
});

describe('the examples', () => {
  const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
  const specs = readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap(
      (f) => yaml.loadAll(readFileSync(join(EXAMPLES, f), 'utf8')) as { kind: string; spec: unknown }[],
    )
    .filter((doc) => doc.kind === AGENT_DEPLOYMENT.kind)
    .map((doc) => AgentDeployment.shape.spec.parse(doc.spec));

  it.each(specs.map((spec) => [spec.source, spec] as const))(
    'the %s example becomes a request the document rules accept',
    (_source, spec) => {
      const config = SourceConfigRequest.parse(toSourceConfig(spec));
      expect(checkRequestFields(config)).toEqual([]);
    },
  );
});
