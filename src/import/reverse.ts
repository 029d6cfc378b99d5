/**
 * A deployment as the control plane shows it, back in this operator's terms: the inverse of
 * translate/request.ts. snake_case becomes camelCase; the document's shapes of volumes, mounts and
 * containers are already the native Kubernetes ones, kept as stored (nulls left out); the platform's
 * defaults are left out (defaults.ts); read-only fields (ids, times, statuses, repo_commit_sha, a
 * repo_host's automatic custom_url) stay behind. Whether the result reproduces the deployment exactly is
 * not assumed here: expressible.ts proves it with the controller's own comparison.
 */
import type { AgentDeploymentSpec } from '../api/agentdeployment.ts';
import type { ResourceSpec as SpecResourceSpec } from '../api/resource-spec.ts';
import type { Deployment, ResourceSpec } from '../controlplane/schemas.ts';
import { snakeToCamel } from '../lib/paths.ts';
import { compact } from '../translate/request.ts';
import { withoutDefaults } from './defaults.ts';

/** The spec without secrets, name or policies: what the deployment's configuration says. */
export type ImportedSpec = Pick<AgentDeploymentSpec, 'source' | 'sourceConfig' | 'sourceRevisionConfig'>;

/** Fields the platform may not echo back (DEVELOPMENT.md, "How a reconcile decides"): absent is not "unset". */
const UNECHOED = ['install_command', 'build_command', 'listener_config'] as const;

const present = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

export function fromResourceSpec(stored: ResourceSpec): SpecResourceSpec {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(withoutDefaults(stored))) out[snakeToCamel(key)] = value;
  return out as SpecResourceSpec;
}

export function fromDeployment(d: Deployment): ImportedSpec {
  const sc = d.source_config;
  const rc = d.source_revision_config;
  const listenerNamespace = present(sc.listener_config?.k8s_namespace);
  const resourceSpec = sc.resource_spec ? fromResourceSpec(sc.resource_spec) : undefined;
  const sourceConfig = compact({
    integrationId: present(sc.integration_id),
    repoUrl: present(sc.repo_url),
    deploymentType: present(sc.deployment_type),
    buildOnPush: present(sc.build_on_push),
    // For repo_host the platform sets it itself, read-only: status.url shows it.
    customUrl: d.source === 'external_image' ? present(sc.custom_url) : undefined,
    listenerId: present(sc.listener_id),
    listenerConfig: listenerNamespace === undefined ? undefined : { k8sNamespace: listenerNamespace },
    installCommand: present(sc.install_command),
    buildCommand: present(sc.build_command),
    resourceSpec: resourceSpec && Object.keys(resourceSpec).length > 0 ? resourceSpec : undefined,
  });
  const sourceRevisionConfig = compact({
    repoRef: present(rc.repo_ref),
    graphConfigPath: present(rc.graph_config_path),
    imageUri: present(rc.image_uri),
  });
  return compact({
    source: d.source,
    sourceConfig: Object.keys(sourceConfig).length > 0 ? sourceConfig : undefined,
    sourceRevisionConfig: Object.keys(sourceRevisionConfig).length > 0 ? sourceRevisionConfig : undefined,
  }) as ImportedSpec;
}

/** The source_config fields this deployment's answer left out entirely, so the import cannot know them. */
export function unechoedFields(d: Deployment): string[] {
  const relevant = d.source === 'external_image' ? UNECHOED : UNECHOED.filter((f) => f !== 'listener_config');
  return relevant.filter((f) => d.source_config[f] === undefined).map((f) => `source_config.${f}`);
}
