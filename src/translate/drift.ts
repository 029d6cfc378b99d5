/**
 * Desired (from the object) against observed (from the control plane): which immutable fields differ,
 * and the PATCH that makes the deployment match. resource_spec is compared whole, after the control
 * plane's own normalisation (its defaults never read as drift), so an item the object no longer states
 * (a removed sidecar, volume, label...) is drift too; the platform replaces resource_spec whole, so it
 * is sent whole. The secrets list is sent whole. Fields the service does not echo back are compared
 * through a digest of what was last applied instead, so they are not "corrected" on every poll.
 */
import {
  type Deployment,
  type DeploymentCreateRequest,
  type DeploymentPatchRequest,
  IMMUTABLE_FIELDS,
  type ResourceSpec,
  type SourceConfigRequest,
  type SourceRevisionConfigRequest,
} from '../controlplane/schemas.ts';
import { valueAt } from '../lib/paths.ts';
import { normaliseResourceSpec } from './normalise.ts';

export interface FieldDifference {
  /** Path in the control plane's request, e.g. `source_config.repo_url`. */
  field: string;
  desired: unknown;
  observed: unknown;
}

export interface DriftInput {
  desired: DeploymentCreateRequest;
  observed: Deployment;
  /** Keyed digests of the secrets: what the object resolves to now, and what was last applied. */
  secretsDigest: { desired: string; applied?: string };
  /** Digest of the fields the service does not echo (install/build command): now and last applied. */
  unechoedDigest: { desired: string; applied?: string };
  /**
   * Adoption: nothing was applied yet (no applied secrets digest). When the platform masks the secret
   * values, take them as current (names are still compared) instead of redeploying to find out.
   */
  adoptUnrevealedSecrets?: boolean;
}

/**
 * How the secrets compare. `removeAllUnsupported`: the object states no secret while the platform has
 * some, which a PATCH cannot express (an empty list means "unchanged"); the caller must report it and
 * never record it as applied. `takenAsCurrent`: masked values were accepted on adoption.
 */
export type SecretsComparison = 'same' | 'changed' | 'removeAllUnsupported' | 'takenAsCurrent';

export interface DriftResult {
  immutable: FieldDifference[];
  /** Paths that differ (never values: secrets are among them). */
  changed: string[];
  patch?: DeploymentPatchRequest;
  /** True when the patch carries a field that makes the control plane build a new revision. */
  createsRevision: boolean;
  secrets: SecretsComparison;
}

const MUTABLE_SOURCE_CONFIG = ['build_on_push', 'custom_url'] as const;
const UNECHOED_SOURCE_CONFIG = ['install_command', 'build_command'] as const;
const REVISION_FIELDS = ['repo_ref', 'graph_config_path', 'image_uri'] as const;

function isUnset(v: unknown): boolean {
  return v === undefined || v === null;
}

/** Structural equality where null, undefined and a missing key are the same thing. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (isUnset(a) || isUnset(b)) return isUnset(a) && isUnset(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameValue(item, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
    for (const k of keys) if (!sameValue(ra[k], rb[k])) return false;
    return true;
  }
  return a === b;
}

/**
 * Top-level resource_spec keys that differ after normalisation, on either side: a key only the platform
 * still has (the object stopped stating it) differs as much as a changed one.
 */
export function resourceSpecDifferences(
  desired: ResourceSpec,
  observed: ResourceSpec | null | undefined,
): string[] {
  const want = normaliseResourceSpec(desired) as Record<string, unknown>;
  const have = normaliseResourceSpec(observed ?? {}) as Record<string, unknown>;
  return [...new Set([...Object.keys(want), ...Object.keys(have)])]
    .filter((k) => !sameValue(want[k], have[k]))
    .sort();
}

/** A value the platform hides: empty or all asterisks. */
export function isMaskedSecretValue(value: string): boolean {
  return /^\**$/.test(value);
}

export function compareSecrets(input: DriftInput): SecretsComparison {
  const { desired, observed } = input;
  const desiredNames = desired.secrets.map((s) => s.name).sort();
  const observedNames = observed.secrets.map((s) => s.name).sort();
  const revealed =
    observed.secrets.length > 0 && observed.secrets.every((s) => !isMaskedSecretValue(s.value));
  let differ: boolean;
  let takenAsCurrent = false;
  if (!sameValue(desiredNames, observedNames)) differ = true;
  else if (revealed) {
    // The platform shows the values: compare them, whatever was recorded.
    const have = new Map(observed.secrets.map((s) => [s.name, s.value]));
    differ = desired.secrets.some((s) => have.get(s.name) !== s.value);
  } else if (input.secretsDigest.applied === undefined && input.adoptUnrevealedSecrets) {
    differ = false;
    takenAsCurrent = desired.secrets.length > 0;
  } else differ = input.secretsDigest.desired !== input.secretsDigest.applied;
  if (!differ) return takenAsCurrent ? 'takenAsCurrent' : 'same';
  // An empty secrets array means "unchanged" to the service: all secrets cannot be removed by PATCH.
  return desired.secrets.length === 0 ? 'removeAllUnsupported' : 'changed';
}

export function computeDrift(input: DriftInput): DriftResult {
  const { desired, observed } = input;
  const immutable: FieldDifference[] = [];
  const changed: string[] = [];
  const sourceConfig: SourceConfigRequest = {};
  const revisionConfig: SourceRevisionConfigRequest = {};
  let secrets: DeploymentPatchRequest['secrets'];

  const checkImmutable = (field: string, want: unknown, have: unknown) => {
    // An unechoed observed value (undefined) cannot be compared; null on the service side is a value.
    if (!isUnset(want) && have !== undefined && !sameValue(want, have)) {
      immutable.push({ field, desired: want, observed: have ?? null });
    }
  };
  for (const field of IMMUTABLE_FIELDS)
    checkImmutable(field, valueAt(desired, field), valueAt(observed, field));
  const dsc = desired.source_config;
  const osc = observed.source_config;

  for (const f of MUTABLE_SOURCE_CONFIG) {
    if (!isUnset(dsc[f]) && !sameValue(dsc[f], osc[f])) {
      changed.push(`source_config.${f}`);
      Object.assign(sourceConfig, { [f]: dsc[f] });
    }
  }
  // Unechoed fields: compare directly when the service does echo them, else through the applied digest.
  const unechoedEchoed = UNECHOED_SOURCE_CONFIG.every((f) => osc[f] !== undefined);
  const unechoedDiffer = UNECHOED_SOURCE_CONFIG.filter((f) => !isUnset(dsc[f])).filter((f) =>
    unechoedEchoed
      ? !sameValue(dsc[f], osc[f])
      : input.unechoedDigest.desired !== input.unechoedDigest.applied,
  );
  for (const f of unechoedDiffer) {
    changed.push(`source_config.${f}`);
    Object.assign(sourceConfig, { [f]: dsc[f] });
  }

  // An object that states no resource_spec leaves the platform's own; one that states it owns all of it.
  if (dsc.resource_spec) {
    const parts = resourceSpecDifferences(dsc.resource_spec, osc.resource_spec);
    if (parts.length > 0) {
      // A non-null resource_spec replaces the whole one: send all of it.
      changed.push(...parts.map((p) => `source_config.resource_spec.${p}`));
      sourceConfig.resource_spec = dsc.resource_spec;
    }
  }

  for (const f of REVISION_FIELDS) {
    const want = desired.source_revision_config[f];
    if (!isUnset(want) && !sameValue(want, observed.source_revision_config[f])) {
      changed.push(`source_revision_config.${f}`);
      revisionConfig[f] = want;
    }
  }

  const secretsComparison = compareSecrets(input);
  if (secretsComparison === 'changed') {
    changed.push('secrets');
    secrets = desired.secrets;
  }

  const patch: DeploymentPatchRequest = {};
  if (Object.keys(sourceConfig).length > 0) patch.source_config = sourceConfig;
  if (Object.keys(revisionConfig).length > 0) patch.source_revision_config = revisionConfig;
  if (secrets) patch.secrets = secrets;
  const hasPatch = Object.keys(patch).length > 0;
  return {
    immutable,
    changed,
    ...(hasPatch && immutable.length === 0 ? { patch } : {}),
    createsRevision:
      immutable.length === 0 &&
      (Object.keys(revisionConfig).length > 0 ||
        secrets !== undefined ||
        sourceConfig.resource_spec !== undefined),
    secrets: secretsComparison,
  };
}
