/**
 * The Kubernetes core/v1 schemas the CRDs embed, as the pinned kube-apiserver serves them at
 * `/openapi/v3/api/v1`. `core-v1.openapi.json` is that document cut down to the closure of ROOT_SCHEMAS;
 * `make kube-openapi` captures it again and test/kube-openapi.test.ts fails when it is stale.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type OpenApiSchema = { [key: string]: unknown };

/** What core-v1.openapi.json holds. */
export type KubeOpenApiSnapshot = {
  /** gitVersion of the API server it was captured from (`/version`). */
  kubernetesVersion: string;
  /** The path it was read from. */
  source: string;
  /** components.schemas entries, by name, in name order. */
  schemas: Record<string, OpenApiSchema>;
};

export const CORE_V1 = 'io.k8s.api.core.v1.';
export const OPENAPI_PATH = '/openapi/v3/api/v1';
export const SNAPSHOT_FILE = join(import.meta.dirname, 'core-v1.openapi.json');

/** The shapes the AgentDeployment's resourceSpec takes from Kubernetes; the snapshot holds their closure. */
export const ROOT_SCHEMAS = [
  'Container',
  'EnvFromSource',
  'EnvVar',
  'ResourceRequirements',
  'Volume',
  'VolumeMount',
].map((name) => `${CORE_V1}${name}`);

const REF_PREFIX = '#/components/schemas/';

/** The schema name a `$ref` points at. */
export function refName(ref: string): string {
  if (!ref.startsWith(REF_PREFIX)) throw new Error(`unexpected $ref ${ref}`);
  return ref.slice(REF_PREFIX.length);
}

/** `roots` and every schema they reach through `$ref`, in name order. */
export function schemaClosure(
  all: Record<string, OpenApiSchema>,
  roots: readonly string[],
): Record<string, OpenApiSchema> {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    const schema = all[name];
    if (!schema) throw new Error(`schema ${name} is not in the document`);
    seen.add(name);
    walk(schema);
  };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) walk(item);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') visit(refName(value));
        else walk(value);
      }
    }
  };
  for (const root of roots) visit(root);
  return Object.fromEntries([...seen].sort().map((name) => [name, all[name] as OpenApiSchema]));
}

/** The snapshot of a served document: what `make kube-openapi` writes. */
export function snapshotOf(document: unknown, kubernetesVersion: string): KubeOpenApiSnapshot {
  const schemas = (document as { components?: { schemas?: Record<string, OpenApiSchema> } }).components
    ?.schemas;
  if (!schemas) throw new Error(`${OPENAPI_PATH} has no components.schemas`);
  return { kubernetesVersion, source: OPENAPI_PATH, schemas: schemaClosure(schemas, ROOT_SCHEMAS) };
}

export function readSnapshot(): KubeOpenApiSnapshot {
  return JSON.parse(readFileSync(SNAPSHOT_FILE, 'utf8')) as KubeOpenApiSnapshot;
}
