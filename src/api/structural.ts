/**
 * zod schema -> structural OpenAPI v3 schema, as a CRD's openAPIV3Schema must be: no $ref, no anyOf
 * except the int-or-string form, no propertyNames, explicit x-kubernetes-* extensions. Anything the
 * conversion does not know is an error rather than a silently wrong CRD.
 */
import { z } from 'zod';

export type JsonSchema = { [key: string]: unknown };

/** Keywords a structural schema may carry (besides x-kubernetes-*). */
const ALLOWED = new Set([
  'description',
  'type',
  'format',
  'enum',
  'default',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'properties',
  'required',
  'items',
  'additionalProperties',
]);

/** Output order: what a reader wants first. */
const ORDER = ['description', 'type', 'format', 'enum', 'default'];

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function ordered(node: JsonSchema): JsonSchema {
  const keys = Object.keys(node).sort((a, b) => rank(a) - rank(b));
  return Object.fromEntries(keys.map((k) => [k, node[k]]));
}

function rank(key: string): number {
  const i = ORDER.indexOf(key);
  if (i >= 0) return i;
  if (key === 'properties' || key === 'required' || key === 'items' || key === 'additionalProperties')
    return 20;
  if (key.startsWith('x-kubernetes-')) return 30;
  return 10;
}

function intOrString(node: JsonSchema): JsonSchema {
  const branches = Array.isArray(node.anyOf) ? node.anyOf.filter(isObject) : [];
  const pattern = branches.find((b) => b.type === 'string')?.pattern;
  return ordered({
    ...(typeof node.description === 'string' ? { description: node.description } : {}),
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    ...(typeof pattern === 'string' ? { pattern } : {}),
    'x-kubernetes-int-or-string': true,
  });
}

function convert(node: JsonSchema, path: string): JsonSchema {
  if (node['x-kubernetes-int-or-string'] === true) return intOrString(node);
  if (node['x-kubernetes-preserve-unknown-fields'] === true) {
    return ordered({
      ...(typeof node.description === 'string' ? { description: node.description } : {}),
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'propertyNames') continue; // map keys are always strings in Kubernetes
    // z.int() states the safe-integer range; Kubernetes integers are int64 anyway.
    if ((key === 'minimum' || key === 'maximum') && Math.abs(Number(value)) === Number.MAX_SAFE_INTEGER)
      continue;
    if (key === 'pattern' && node.format === 'date-time') continue; // the format says it
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, convert(child as JsonSchema, `${path}.${name}`)]),
      );
    } else if (key === 'items' && isObject(value)) {
      out.items = convert(value, `${path}[]`);
    } else if (key === 'additionalProperties') {
      if (isObject(value) && Object.keys(value).length > 0)
        out.additionalProperties = convert(value, `${path}{}`);
      else if (value !== false)
        throw new Error(`${path || '<root>'}: untyped additionalProperties; use freeForm()`);
    } else if (ALLOWED.has(key) || key.startsWith('x-kubernetes-')) {
      out[key] = value;
    } else {
      throw new Error(`${path || '<root>'}: keyword ${key} is not allowed in a structural schema`);
    }
  }
  return ordered(out);
}

/**
 * The structural OpenAPI v3 schema of a zod schema (input form: defaulted fields are optional).
 * `replace` swaps the schema of given zod nodes wholesale (e.g. metadata, which the API server owns).
 */
export function toStructural(schema: z.ZodType, replace = new Map<z.ZodType, JsonSchema>()): JsonSchema {
  const raw = z.toJSONSchema(schema, {
    io: 'input',
    target: 'openapi-3.0',
    unrepresentable: 'throw',
    override: (ctx) => {
      const replacement = replace.get(ctx.zodSchema as unknown as z.ZodType);
      if (!replacement) return;
      for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as JsonSchema)[key];
      Object.assign(ctx.jsonSchema, replacement);
    },
  });
  delete raw.$schema;
  return convert(raw as JsonSchema, '');
}

/**
 * Problems that make a schema a poor CRD schema: a property without a description, or a keyword a
 * structural schema must not carry. Empty when the schema is fine.
 */
export function schemaProblems(node: JsonSchema, path = ''): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(node)) {
    const allowedAnyOf = key === 'anyOf' && node['x-kubernetes-int-or-string'] === true;
    if (!ALLOWED.has(key) && !key.startsWith('x-kubernetes-') && !allowedAnyOf) {
      problems.push(`${path || '<root>'}: keyword ${key}`);
    }
  }
  if (isObject(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      const childPath = `${path}.${name}`;
      if (!isObject(child)) continue;
      // The API server forbids anything but `type: object` on the root's metadata.
      const exempt = childPath === '.metadata';
      if (!exempt && (typeof child.description !== 'string' || child.description === '')) {
        problems.push(`${childPath}: no description`);
      }
      problems.push(...schemaProblems(child, childPath));
    }
  }
  if (isObject(node.items)) problems.push(...schemaProblems(node.items, `${path}[]`));
  if (isObject(node.additionalProperties))
    problems.push(...schemaProblems(node.additionalProperties, `${path}{}`));
  return problems;
}
