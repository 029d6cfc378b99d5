/**
 * What a stored deployment or template looks like on the wire: secrets masked (or revealed, as the
 * notes say production may do), unechoed fields left out, and, when a test asks, every optional field
 * the platform has no value for written as an explicit null.
 */
import type { Deployment, SourceConfig } from '../controlplane/schemas.ts';
import type { SandboxTemplate } from '../controlplane/template-schemas.ts';
import type { StoredDeployment } from './store.ts';

export const MASKED_SECRET_VALUE = '********';

/** Stored but not echoed back, as production does not always echo them. */
const UNECHOED_SOURCE_CONFIG_FIELDS = ['install_command', 'build_command', 'listener_config'] as const;

/** Nullable fields the document lists, written as null when unset in the "null optional fields" mode. */
const NULLABLE_SOURCE_CONFIG_FIELDS = [
  'integration_id',
  'repo_url',
  'deployment_type',
  'build_on_push',
  'custom_url',
  'resource_spec',
  'listener_id',
] as const;
const NULLABLE_REVISION_FIELDS = ['repo_ref', 'graph_config_path', 'image_uri', 'repo_commit_sha'] as const;
const OPTIONAL_TEMPLATE_FIELDS = [
  'image',
  'resources',
  'volume_mounts',
  'proxy_config',
  'registry_name',
  'registry_id',
  'created_at',
  'updated_at',
] as const;

export interface Presentation {
  /** Unset optional fields are sent as null instead of being left out. */
  nullOptionalFields: boolean;
  /** Secret values are sent as stored instead of masked. */
  revealSecrets: boolean;
}

export const DEFAULT_PRESENTATION: Presentation = { nullOptionalFields: false, revealSecrets: false };

function withNulls<T extends object>(value: T, fields: readonly string[]): T {
  const out = { ...value } as Record<string, unknown>;
  for (const field of fields) out[field] ??= null;
  return out as T;
}

export function presentDeployment(
  deployment: StoredDeployment,
  how: Presentation = DEFAULT_PRESENTATION,
): Deployment {
  let sourceConfig: SourceConfig = { ...deployment.source_config };
  for (const field of UNECHOED_SOURCE_CONFIG_FIELDS) delete sourceConfig[field];
  let revisionConfig = { ...deployment.source_revision_config };
  if (how.nullOptionalFields) {
    sourceConfig = withNulls(sourceConfig, NULLABLE_SOURCE_CONFIG_FIELDS);
    revisionConfig = withNulls(revisionConfig, NULLABLE_REVISION_FIELDS);
  }
  return {
    ...deployment,
    source_config: sourceConfig,
    source_revision_config: revisionConfig,
    secrets: deployment.secrets.map((s) => ({
      name: s.name,
      value: how.revealSecrets ? s.value : MASKED_SECRET_VALUE,
    })),
  };
}

export function presentTemplate(template: SandboxTemplate, how: Presentation = DEFAULT_PRESENTATION) {
  return how.nullOptionalFields ? withNulls(template, OPTIONAL_TEMPLATE_FIELDS) : template;
}
