/**
 * Object spec (camelCase, native Kubernetes types) -> control-plane request (snake_case, the document's
 * shapes). Only fields the object sets are carried; nothing is invented.
 */
import type { AgentDeploymentSpec } from '../api/agentdeployment.ts';
import {
  Container,
  type DeploymentCreateRequest,
  type ResourceSpec,
  type Secret,
  type SourceConfigRequest,
  type SourceRevisionConfigRequest,
  Volume,
  VolumeMount,
} from '../controlplane/schemas.ts';

type SpecResourceSpec = NonNullable<NonNullable<AgentDeploymentSpec['sourceConfig']>['resourceSpec']>;

const camelToSnake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Drops undefined values so two objects compare by the fields they really carry. */
export function compact<T extends Record<string, unknown>>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const k in obj) if (obj[k] !== undefined) out[k] = obj[k];
  return out as T;
}

// The fields the document lists, read from its schemas: anything else the object carries stays behind.
const VOLUME_FIELDS = Object.keys(Volume.shape);
const VOLUME_MOUNT_FIELDS = Object.keys(VolumeMount.shape);
const CONTAINER_FIELDS = Object.keys(Container.shape);

function pick(obj: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (obj[f] !== undefined) out[f] = obj[f];
  return out;
}

function volumeMount(m: Record<string, unknown>): VolumeMount {
  return pick(m, VOLUME_MOUNT_FIELDS) as VolumeMount;
}

/** Quantities may be written as numbers in YAML; the document's ResourceRequirements maps are strings. */
function quantities(map: unknown): Record<string, string> | undefined {
  if (!map || typeof map !== 'object') return undefined;
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, String(v)]));
}

function container(c: Record<string, unknown>): Container {
  const out = pick(c, CONTAINER_FIELDS);
  if (Array.isArray(c.volumeMounts)) out.volumeMounts = c.volumeMounts.map(volumeMount);
  if (c.resources && typeof c.resources === 'object') {
    const r = c.resources as Record<string, unknown>;
    out.resources = compact({ limits: quantities(r.limits), requests: quantities(r.requests) });
  }
  return out as Container;
}

export function toResourceSpec(spec: SpecResourceSpec): ResourceSpec {
  const out: Record<string, unknown> = {};
  for (const key in spec) {
    const value = (spec as Record<string, unknown>)[key];
    if (value === undefined) continue;
    switch (key) {
      case 'volumes':
        out.volumes = (value as Record<string, unknown>[]).map((v) => pick(v, VOLUME_FIELDS) as Volume);
        break;
      case 'volumeMounts':
        out.volume_mounts = (value as Record<string, unknown>[]).map(volumeMount);
        break;
      case 'initContainers':
      case 'sidecars':
        out[camelToSnake(key)] = (value as Record<string, unknown>[]).map(container);
        break;
      default:
        out[camelToSnake(key)] = value;
    }
  }
  return out as ResourceSpec;
}

export function toSourceConfig(spec: AgentDeploymentSpec): SourceConfigRequest {
  const sc = spec.sourceConfig ?? {};
  return compact({
    integration_id: sc.integrationId,
    repo_url: sc.repoUrl,
    deployment_type: sc.deploymentType,
    build_on_push: sc.buildOnPush,
    custom_url: sc.customUrl,
    listener_id: sc.listenerId,
    listener_config: sc.listenerConfig
      ? compact({ k8s_namespace: sc.listenerConfig.k8sNamespace })
      : undefined,
    install_command: sc.installCommand,
    build_command: sc.buildCommand,
    resource_spec: sc.resourceSpec ? toResourceSpec(sc.resourceSpec) : undefined,
  });
}

export function toSourceRevisionConfig(spec: AgentDeploymentSpec): SourceRevisionConfigRequest {
  const rc = spec.sourceRevisionConfig ?? {};
  return compact({ repo_ref: rc.repoRef, graph_config_path: rc.graphConfigPath, image_uri: rc.imageUri });
}

/** The full create request for an object whose secrets are already resolved. */
export function toCreateRequest(
  spec: AgentDeploymentSpec,
  deploymentName: string,
  secrets: Secret[],
): DeploymentCreateRequest {
  return {
    name: deploymentName,
    source: spec.source,
    source_config: toSourceConfig(spec),
    source_revision_config: toSourceRevisionConfig(spec),
    secrets,
  };
}
