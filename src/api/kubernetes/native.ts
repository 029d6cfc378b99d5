/**
 * zod schemas built from Kubernetes' own OpenAPI v3 (the pinned snapshot in core-v1.openapi.json), so a
 * CRD field typed as a core/v1 shape is validated, pruned and explained exactly as in a Pod: same fields,
 * types, enums, required fields and descriptions, nothing restated by hand. Defaults and the
 * strategic-merge-patch hints are left out: a CRD must not invent values the object does not carry.
 */
import { z } from 'zod';
import { freeForm, quantity } from '../common.ts';
import { type OpenApiSchema, readSnapshot, refName } from './openapi.ts';

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** Keywords of the served schemas that carry no validation a CRD can or should repeat. */
const IGNORED = new Set([
  'default',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-unions',
]);
/** List and map semantics the CRD keeps (they make e.g. duplicate env names a native error). */
const KEPT_EXTENSIONS = ['x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'];
const HANDLED = new Set([
  'description',
  'type',
  'format',
  'enum',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'allOf',
  '$ref',
  ...KEPT_EXTENSIONS,
]);

const schemas = readSnapshot().schemas;
const built = new Map<string, z.ZodType>();

function described<T extends z.ZodType>(schema: T, node: OpenApiSchema): T {
  return typeof node.description === 'string' ? schema.describe(node.description) : schema;
}

function withExtensions<T extends z.ZodType>(schema: T, node: OpenApiSchema): T {
  const meta = Object.fromEntries(KEPT_EXTENSIONS.filter((k) => k in node).map((k) => [k, node[k]]));
  return Object.keys(meta).length > 0 ? schema.meta(meta) : schema;
}

/** The zod form of one schema node; `path` names it in errors. */
function fromNode(node: OpenApiSchema, path: string): z.ZodType {
  if (node.format === 'int-or-string') {
    // IntOrString: served as a oneOf, written in a CRD as x-kubernetes-int-or-string.
    return described(z.union([z.int(), z.string()]).meta({ 'x-kubernetes-int-or-string': true }), node);
  }
  for (const key of Object.keys(node)) {
    if (!HANDLED.has(key) && !IGNORED.has(key)) throw new Error(`${path}: unsupported keyword ${key}`);
  }
  if (typeof node.$ref === 'string') return named(refName(node.$ref));
  if (Array.isArray(node.allOf)) {
    // `allOf: [{$ref}]` is how the served document attaches a field's description to a named type.
    const [only, ...rest] = node.allOf as OpenApiSchema[];
    if (!only || rest.length > 0) throw new Error(`${path}: allOf with ${node.allOf.length} members`);
    return described(fromNode(only, path), node);
  }
  return described(withExtensions(typed(node, path), node), node);
}

function typed(node: OpenApiSchema, path: string): z.ZodType {
  switch (node.type) {
    case 'string':
      return Array.isArray(node.enum) ? z.enum(node.enum as [string, ...string[]]) : z.string();
    case 'integer':
      return z.int();
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'array':
      return z.array(fromNode(node.items as OpenApiSchema, `${path}[]`));
    case 'object':
      if (node.properties) return objectOf(node, path);
      if (node.additionalProperties)
        return z.record(z.string(), fromNode(node.additionalProperties as OpenApiSchema, `${path}{}`));
      return freeForm(); // an object Kubernetes itself leaves free-form (FieldsV1)
    default:
      throw new Error(`${path}: unsupported type ${String(node.type)}`);
  }
}

function objectOf(node: OpenApiSchema, path: string): z.ZodObject {
  const required = new Set((node.required as string[] | undefined) ?? []);
  const shape = Object.fromEntries(
    Object.entries(node.properties as Record<string, OpenApiSchema>).map(([name, child]) => {
      const schema = fromNode(child, `${path}.${name}`);
      if (required.has(name)) return [name, schema];
      const optional = schema.optional();
      return [name, typeof child.description === 'string' ? optional.describe(child.description) : optional];
    }),
  );
  return z.object(shape);
}

function named(name: string): z.ZodType {
  // The quantity form CRDs use (integer or string, with controller-gen's pattern), not the served oneOf.
  if (name === QUANTITY) return quantity();
  const cached = built.get(name);
  if (cached) return cached;
  const node = schemas[name];
  if (!node) throw new Error(`${name} is not in the Kubernetes OpenAPI snapshot`);
  const schema = fromNode(node, name);
  built.set(name, schema);
  return schema;
}

/** The core/v1 object type `name` (e.g. `io.k8s.api.core.v1.Container`) as a zod object. */
export function kubeObject(name: string): z.ZodObject {
  const schema = named(name);
  if (!(schema instanceof z.ZodObject)) throw new Error(`${name} is not an object type`);
  return schema;
}

/** The description Kubernetes gives a field of an object built by kubeObject. */
export function kubeDescription(object: z.ZodObject, field: string): string {
  const schema = object.shape[field];
  const description = schema && z.globalRegistry.get(schema)?.description;
  if (!description) throw new Error(`no Kubernetes description for ${field}`);
  return description;
}
