/**
 * A CRD's structural OpenAPI v3 schema checked as the API server checks it on `kubectl apply` (strict
 * field validation): defaults applied and nulls of non-nullable fields dropped first, then types,
 * required, enum, ranges, lengths, patterns (Go's RE2, as the API server's), item counts, list-type
 * uniqueness, and every field the schema does not declare refused. The CEL rules are cel-rules.ts's.
 */
import { RE2JS } from '@bufbuild/re2';
import type { JsonSchema } from '../../api/structural.ts';
import { child, type FieldError, index } from './field-error.ts';

/** The keywords this file checks: test/plan-validation-agreement.test.ts fails on a CRD using another. */
export const CHECKED_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'enum',
  'default',
  'nullable',
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
  'anyOf',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
  'description',
]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const sub = (schema: JsonSchema, key: string) => schema[key] as JsonSchema | undefined;
const props = (schema: JsonSchema) => (schema.properties ?? {}) as Record<string, JsonSchema>;

/**
 * The value after defaulting, as server-side apply leaves it before validating: a missing field with a
 * default takes it, and so does a null one that is not nullable; any other null stays, and is then
 * refused as a value of the wrong type. (A plain create drops such nulls instead: the plan's dry run
 * with a cluster is a server-side apply, and the offline validation answers as that does.)
 */
export function withDefaults(schema: JsonSchema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = sub(schema, 'items');
    return items ? value.map((v) => withDefaults(items, v)) : value;
  }
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  const extra = sub(schema, 'additionalProperties');
  for (const [key, v] of Object.entries(value)) {
    const s = props(schema)[key] ?? extra;
    // A null that is not nullable takes the default, when there is one (below).
    if (v === null && s?.default !== undefined && !s.nullable) continue;
    out[key] = s ? withDefaults(s, v) : v;
  }
  for (const [key, s] of Object.entries(props(schema))) {
    if (out[key] === undefined && s.default !== undefined) out[key] = structuredClone(s.default);
  }
  return out;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;
}

function typeMatches(type: unknown, v: unknown): boolean {
  const actual = jsonType(v);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

const patterns = new Map<string, RE2JS>();
function matches(pattern: string, s: string): boolean {
  let re = patterns.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    patterns.set(pattern, re);
  }
  return re.test(s);
}

/** The schema errors of `value` at `path`; `value` already defaulted. */
export function schemaErrors(schema: JsonSchema, value: unknown, path: string, at: string): FieldError[] {
  const errors: FieldError[] = [];
  check(schema, value, path, at, errors);
  return errors;
}

function check(schema: JsonSchema, v: unknown, path: string, at: string, errors: FieldError[]): void {
  const invalid = (keyword: string, detail: string) =>
    errors.push({ field: path, type: 'Invalid value', value: v, detail, source: `${at} ${keyword}` });
  if (v === null && schema.nullable) return;
  // A wrong type shows the value's type, not the value; the enum is still checked.
  const typeError = (type: string) => ({
    field: path,
    type: 'Invalid value' as const,
    value: jsonType(v),
    detail: `${path} in body must be of type ${type}: "${jsonType(v)}"`,
    blocking: true,
    source: `${at} type`,
  });
  let typed = true;
  if (schema['x-kubernetes-int-or-string']) {
    if (jsonType(v) !== 'integer' && jsonType(v) !== 'string') {
      // The API server lists the anyOf's failure and its first branch's too.
      errors.push(typeError('integer,string'), {
        field: '<nil>',
        type: 'Invalid value',
        value: '',
        detail: `"${path}" must validate at least one schema (anyOf)`,
      });
      errors.push(typeError('integer'));
      typed = false;
    }
  } else if (schema.type !== undefined && !typeMatches(schema.type, v)) {
    errors.push(typeError(String(schema.type)));
    typed = false;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === v)) {
    errors.push({
      field: path,
      type: 'Unsupported value',
      value: v,
      detail: `supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`,
      source: `${at} enum`,
    });
  }
  if (!typed) return;
  if (typeof v === 'number') {
    if (typeof schema.maximum === 'number' && v > schema.maximum)
      invalid('maximum', `${path} in body should be less than or equal to ${schema.maximum}`);
    if (typeof schema.minimum === 'number' && v < schema.minimum)
      invalid('minimum', `${path} in body should be greater than or equal to ${schema.minimum}`);
  }
  if (typeof v === 'string') checkString(schema, v, path, at, errors);
  if (Array.isArray(v)) checkArray(schema, v, path, at, errors);
  else if (isObject(v)) checkObject(schema, v, path, at, errors);
}

/** The first of maxLength, minLength and pattern a string breaks (the API server stops there). */
function checkString(schema: JsonSchema, v: string, path: string, at: string, errors: FieldError[]): void {
  const length = [...v].length; // characters, as Go counts runes
  if (typeof schema.maxLength === 'number' && length > schema.maxLength)
    errors.push({
      field: path,
      type: 'Too long',
      detail: `may not be more than ${schema.maxLength} bytes`,
      source: `${at} maxLength`,
    });
  else if (typeof schema.minLength === 'number' && length < schema.minLength)
    errors.push({
      field: path,
      type: 'Invalid value',
      value: v,
      detail: `${path} in body should be at least ${schema.minLength} chars long`,
      source: `${at} minLength`,
    });
  else if (typeof schema.pattern === 'string' && !matches(schema.pattern, v))
    errors.push({
      field: path,
      type: 'Invalid value',
      value: v,
      detail: `${path} in body should match '${schema.pattern}'`,
      source: `${at} pattern`,
    });
}

function checkArray(schema: JsonSchema, v: unknown[], path: string, at: string, errors: FieldError[]): void {
  if (typeof schema.maxItems === 'number' && v.length > schema.maxItems)
    errors.push({
      field: path,
      type: 'Too many',
      value: v.length,
      detail: `must have at most ${schema.maxItems} items`,
      source: `${at} maxItems`,
    });
  if (typeof schema.minItems === 'number' && v.length < schema.minItems)
    errors.push({
      field: path,
      type: 'Invalid value',
      value: v.length,
      detail: `${path} in body should have at least ${schema.minItems} items`,
      source: `${at} minItems`,
    });
  const items = sub(schema, 'items');
  if (items) for (const [i, item] of v.entries()) check(items, item, index(path, i), `${at}[]`, errors);
  checkListType(schema, v, path, at, errors);
}

/** `x-kubernetes-list-type`: a set's items and a map's keys are unique. */
function checkListType(
  schema: JsonSchema,
  v: unknown[],
  path: string,
  at: string,
  errors: FieldError[],
): void {
  const listType = schema['x-kubernetes-list-type'];
  if (listType !== 'set' && listType !== 'map') return;
  const keys = (schema['x-kubernetes-list-map-keys'] ?? []) as string[];
  const seen = new Set<string>();
  v.forEach((item, i) => {
    const key =
      listType === 'set'
        ? JSON.stringify(item)
        : JSON.stringify(keys.map((k) => (isObject(item) ? item[k] : undefined)));
    if (seen.has(key)) {
      const value = listType === 'set' ? item : Object.fromEntries(keys.map((k) => [k, (item as never)[k]]));
      errors.push({
        field: index(path, i),
        type: 'Duplicate value',
        value,
        source: `${at} x-kubernetes-list-type`,
      });
    }
    seen.add(key);
  });
}

function checkObject(
  schema: JsonSchema,
  v: Record<string, unknown>,
  path: string,
  at: string,
  errors: FieldError[],
): void {
  const declared = props(schema);
  const extra = sub(schema, 'additionalProperties');
  const keepsUnknown = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const key of (schema.required ?? []) as string[]) {
    if (v[key] === undefined)
      errors.push({ field: child(path, key), type: 'Required value', source: `${at} required ${key}` });
  }
  const count = Object.keys(v).length;
  if (typeof schema.maxProperties === 'number' && count > schema.maxProperties)
    errors.push({
      field: path,
      type: 'Too many',
      value: count,
      detail: `must have at most ${schema.maxProperties} items`,
      source: `${at} maxProperties`,
    });
  if (typeof schema.minProperties === 'number' && count < schema.minProperties)
    errors.push({
      field: path,
      type: 'Invalid value',
      value: count,
      detail: `${path} in body should have at least ${schema.minProperties} properties`,
      source: `${at} minProperties`,
    });
  for (const [key, value] of Object.entries(v)) {
    const s = declared[key] ?? extra;
    if (s) check(s, value, child(path, key), declared[key] ? child(at, key) : `${at}{}`, errors);
    else if (!keepsUnknown)
      errors.push({
        field: child(path, key),
        type: 'field not declared in schema',
        source: `${at} properties`,
      });
  }
}
