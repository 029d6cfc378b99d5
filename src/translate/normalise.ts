/**
 * The normalisation the control plane applies to a stored resource_spec, i.e. every default the
 * interface document states: cpu numbers rounded to one decimal, limits at twice their requests, queue
 * values copied from their bases when unset, and an EnvVar's `value` defaulting to the empty string.
 * Empty lists and maps are the same as absent ones. The simulator stores what this returns; the
 * operator's drift check compares through the same function, so a default never reads as drift.
 */
import type { Container, EnvVar, ResourceSpec } from '../controlplane/schemas.ts';

/** Fields the document says are rounded to one decimal place. */
export const ROUNDED_CPU_FIELDS = ['cpu', 'cpu_limit', 'queue_cpu', 'queue_cpu_limit'] as const;

/**
 * Rounds to one decimal as Python's round(x, 1) does: correctly rounded from the exact binary value
 * (what toFixed does), with exact ties (x = odd/4, e.g. 0.25) going to the even digit.
 */
export function roundToOneDecimal(x: number): number {
  const quarters = x * 4; // exact in binary floating point
  if (Number.isInteger(quarters) && quarters % 2 !== 0) {
    const tenths = x * 10; // exactly n + 0.5 here
    const down = Math.floor(tenths);
    return (down % 2 === 0 ? down : down + 1) / 10;
  }
  return Number(x.toFixed(1));
}

type Derivation = {
  field: keyof ResourceSpec;
  base: keyof ResourceSpec;
  derive: (base: number) => number;
};

const twice = (v: number) => v * 2;
const same = (v: number) => v;
const twiceRounded = (v: number) => roundToOneDecimal(v * 2);

/** Order matters: queue_cpu must exist before queue_cpu_limit derives from it, and so on. */
const DERIVATIONS: readonly Derivation[] = [
  { field: 'cpu_limit', base: 'cpu', derive: twiceRounded },
  { field: 'memory_limit_mb', base: 'memory_mb', derive: twice },
  { field: 'queue_min_scale', base: 'min_scale', derive: same },
  { field: 'queue_max_scale', base: 'max_scale', derive: same },
  { field: 'queue_cpu', base: 'cpu', derive: same },
  { field: 'queue_cpu_limit', base: 'queue_cpu', derive: twiceRounded },
  { field: 'queue_memory_mb', base: 'memory_mb', derive: same },
  { field: 'queue_memory_limit_mb', base: 'queue_memory_mb', derive: twice },
  { field: 'db_cpu_limit', base: 'db_cpu', derive: twice },
  { field: 'db_memory_limit_mb', base: 'db_memory_mb', derive: twice },
];

/** The fields the platform derives from another when unset, last derived first (import leaves them out). */
export const DERIVED_FIELDS: readonly (keyof ResourceSpec)[] = DERIVATIONS.map((d) => d.field).reverse();

const CONTAINER_LISTS = ['init_containers', 'sidecars'] as const;

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** EnvVar.value defaults to "" (the server echoes it so for a valueFrom or name-only variable). */
export function normaliseEnvVar(env: EnvVar): EnvVar {
  const { valueFrom, ...rest } = env;
  return { ...rest, value: env.value ?? '', ...(isEmpty(valueFrom) ? {} : { valueFrom }) };
}

function normaliseContainer(container: Container): Container {
  return container.env === undefined ? container : { ...container, env: container.env.map(normaliseEnvVar) };
}

/** Returns a new spec: null/empty fields dropped, cpu numbers rounded, defaults derived. */
export function normaliseResourceSpec(spec: ResourceSpec): ResourceSpec {
  const out: Record<string, unknown> = {};
  for (const key in spec) {
    const value = spec[key as keyof ResourceSpec];
    if (!isEmpty(value)) out[key] = value;
  }
  for (const field of CONTAINER_LISTS) {
    const containers = out[field] as Container[] | undefined;
    if (containers) out[field] = containers.map(normaliseContainer);
  }
  for (const field of ROUNDED_CPU_FIELDS) {
    const value = out[field];
    if (typeof value === 'number') out[field] = roundToOneDecimal(value);
  }
  for (const { field, base, derive } of DERIVATIONS) {
    const baseValue = out[base];
    if (out[field] === undefined && typeof baseValue === 'number') out[field] = derive(baseValue);
  }
  return out as ResourceSpec;
}
