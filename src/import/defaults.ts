/**
 * The platform's defaults left out of an imported resource_spec: the inverse of normalise.ts. A stored
 * resource_spec carries every default the interface document states (limits at twice the requests, queue
 * values copied from their bases, an env var's `value: ""`, nulls for what is unset); an imported spec
 * states only what the deployment's author could have written. A derived field is left out only when the
 * platform's normalisation of what is left gives back exactly what it stores, so leaving it out can never
 * read as drift.
 */
import type { Container, EnvVar, ResourceSpec } from '../controlplane/schemas.ts';
import { sameValue } from '../translate/drift.ts';
import { DERIVED_FIELDS, normaliseResourceSpec } from '../translate/normalise.ts';

/** A copy without nulls at any depth: Kubernetes objects cannot state null, and null reads as unset. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = withoutNulls(v);
  return out;
}

/** `value: ""` is the platform's default (normaliseEnvVar): an env var states it only when it is not. */
function envVarAsWritten(env: EnvVar): EnvVar {
  const { value, ...rest } = env;
  return value === '' || value === null || value === undefined ? rest : { ...rest, value };
}

function containerAsWritten(container: Container): Container {
  return container.env === undefined ? container : { ...container, env: container.env.map(envVarAsWritten) };
}

const isEmptyTopLevel = (v: unknown) =>
  v === null ||
  v === undefined ||
  (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v).length === 0);

/** The smallest resource_spec whose normalisation is the stored one's. */
export function withoutDefaults(stored: ResourceSpec): ResourceSpec {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) {
    // Empty lists and maps are absent ones to the platform; inside them, every value is kept as stored.
    if (!isEmptyTopLevel(value)) out[key] = withoutNulls(value);
  }
  for (const list of ['init_containers', 'sidecars'] as const) {
    const containers = out[list] as Container[] | undefined;
    if (containers) out[list] = containers.map(containerAsWritten);
  }
  const target = normaliseResourceSpec(stored);
  for (const field of DERIVED_FIELDS) {
    if (!(field in out)) continue;
    const { [field]: _, ...rest } = out;
    if (sameValue(normaliseResourceSpec(rest as ResourceSpec), target)) delete out[field];
  }
  return out as ResourceSpec;
}
