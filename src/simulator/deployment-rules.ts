/**
 * The document's rules on deployment requests that a schema alone does not express: cpu bounds, the
 * do-not-use fields, the shapes inside resource_spec, fields allowed only for one source, uuids, the tag
 * rule, immutable fields.
 */
import {
  DO_NOT_USE_RESOURCE_FIELDS,
  IMMUTABLE_FIELDS,
  type Source,
  type SourceConfig,
  type SourceConfigRequest,
  type SourceRevisionConfigRequest,
  type ValidationError,
} from '../controlplane/schemas.ts';
import { valueAt } from '../lib/paths.ts';
import { checkResourceSpecShapes } from './resource-spec-rules.ts';
import { isUuid, uuidError } from './validation.ts';

const CPU_BOUNDS: Array<
  [field: 'cpu' | 'queue_cpu' | 'cpu_limit' | 'queue_cpu_limit', min: number, max: number]
> = [
  ['cpu', 0.1, 8],
  ['queue_cpu', 0.1, 8],
  ['cpu_limit', 0.1, 16],
  ['queue_cpu_limit', 0.1, 16],
];

const SPEC_LOC = ['body', 'source_config', 'resource_spec'];

/** Checks that depend only on the request: bounds, do-not-use fields, nested shapes, uuid formats. */
export function checkRequestFields(sourceConfig: SourceConfigRequest | null | undefined): ValidationError[] {
  const errors: ValidationError[] = [];
  if (!sourceConfig) return errors;
  for (const field of ['integration_id', 'listener_id'] as const) {
    const value = sourceConfig[field];
    if (typeof value === 'string' && !isUuid(value)) errors.push(uuidError(['body', 'source_config', field]));
  }
  const spec = sourceConfig.resource_spec;
  if (!spec) return errors;
  for (const [field, min, max] of CPU_BOUNDS) {
    const value = spec[field];
    if (typeof value !== 'number') continue;
    if (value < min) {
      errors.push({
        loc: [...SPEC_LOC, field],
        msg: `Input should be greater than or equal to ${min}`,
        type: 'greater_than_equal',
      });
    } else if (value > max) {
      errors.push({
        loc: [...SPEC_LOC, field],
        msg: `Input should be less than or equal to ${max}`,
        type: 'less_than_equal',
      });
    }
  }
  for (const field of DO_NOT_USE_RESOURCE_FIELDS) {
    if (spec[field] !== null && spec[field] !== undefined) {
      errors.push({
        loc: [...SPEC_LOC, field],
        msg: `Value error, ${field} must not be set`,
        type: 'value_error',
      });
    }
  }
  errors.push(...checkResourceSpecShapes(spec));
  return errors;
}

const REPO_HOST_ONLY_CONFIG = ['integration_id', 'repo_url', 'deployment_type', 'build_on_push'] as const;
const EXTERNAL_IMAGE_ONLY_CONFIG = ['custom_url', 'resource_spec', 'listener_id', 'listener_config'] as const;
const REPO_HOST_ONLY_REVISION = ['repo_ref', 'graph_config_path'] as const;
const EXTERNAL_IMAGE_ONLY_REVISION = ['image_uri'] as const;

function isSet(value: unknown): boolean {
  return value !== null && value !== undefined;
}

/** Fields set on a request whose source does not allow them. */
export function checkSourceFields(
  source: Source,
  sourceConfig: SourceConfigRequest | null | undefined,
  revisionConfig: SourceRevisionConfigRequest | null | undefined,
): ValidationError[] {
  const errors: ValidationError[] = [];
  const foreign = (loc: string[], other: Source) =>
    errors.push({
      loc: ['body', ...loc],
      msg: `Value error, ${loc.at(-1)} is only allowed when source is ${other}`,
      type: 'value_error',
    });
  const [configOnlyOther, revisionOnlyOther, other] =
    source === 'repo_host'
      ? [EXTERNAL_IMAGE_ONLY_CONFIG, EXTERNAL_IMAGE_ONLY_REVISION, 'external_image' as const]
      : [REPO_HOST_ONLY_CONFIG, REPO_HOST_ONLY_REVISION, 'repo_host' as const];
  for (const field of configOnlyOther) {
    if (isSet(sourceConfig?.[field])) foreign(['source_config', field], other);
  }
  for (const field of revisionOnlyOther) {
    if (isSet(revisionConfig?.[field])) foreign(['source_revision_config', field], other);
  }
  return errors;
}

/** build_on_push must not be true when the (effective) repo_ref is a tag. */
export function checkTagRule(buildOnPush: boolean | null | undefined, repoRef: string | null | undefined) {
  if (buildOnPush === true && typeof repoRef === 'string' && repoRef.startsWith('refs/tags/')) {
    return [
      {
        loc: ['body', 'source_config', 'build_on_push'],
        msg: 'Value error, build_on_push must be false when repo_ref is a tag (refs/tags/...)',
        type: 'value_error',
      },
    ];
  }
  return [];
}

/** Fields a create must carry for the deployment to be buildable at all. */
export function checkCreateRequired(
  source: Source,
  sourceConfig: SourceConfigRequest,
  revisionConfig: SourceRevisionConfigRequest,
): ValidationError[] {
  const missing = (loc: string[]) => ({ loc: ['body', ...loc], msg: 'Field required', type: 'missing' });
  if (source === 'repo_host') {
    return isSet(sourceConfig.repo_url) ? [] : [missing(['source_config', 'repo_url'])];
  }
  return isSet(revisionConfig.image_uri) ? [] : [missing(['source_revision_config', 'image_uri'])];
}

/**
 * The first immutable field a patch would change (a non-null value different from the stored one),
 * as its dotted path, or undefined.
 */
export function findImmutableChange(
  stored: { name: string; source: Source; source_config: SourceConfig },
  patch: { name?: unknown; source?: unknown; source_config?: SourceConfigRequest | null },
): string | undefined {
  const changed = (requested: unknown, current: unknown) => isSet(requested) && requested !== current;
  // A stored field the deployment lacks is null on the service side.
  return IMMUTABLE_FIELDS.find((field) => changed(valueAt(patch, field), valueAt(stored, field) ?? null));
}
