/**
 * A CRD's `x-kubernetes-validations` rules evaluated as the API server evaluates them on a create: each
 * rule where its value is present, `self` typed by the schema (number as double, integer as int),
 * regular expressions in Go's RE2, the failure worded by the rule's messageExpression, message or
 * "failed rule", at its fieldPath, with its reason. Transition rules (those reading `oldSelf`) do not
 * apply to a create, as on the API server. The rules use CEL's standard library only (has, all, exists,
 * exists_one, matches, startsWith, duration): a rule calling a Kubernetes library function this does not
 * provide fails here as an "unbound function" error, so the agreement test would catch it.
 */
import { type CelInput, type CelResult, celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { RE2JS } from '@bufbuild/re2';
import type { JsonSchema } from '../../api/structural.ts';
import { child, type FieldError, type FieldErrorType, index } from './field-error.ts';

export interface Rule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
}

const env = celEnv({ re2: { compile: (pattern) => RE2JS.compile(pattern) } });

type Program = (bindings: { self: CelInput }) => CelResult;
const programs = new Map<string, Program>();
function program(expression: string): Program {
  let p = programs.get(expression);
  if (!p) {
    p = plan(env, parse(expression)) as Program;
    programs.set(expression, p);
  }
  return p;
}

/** Whether the expression reads `oldSelf` anywhere (found in its syntax tree, not its text). */
function readsOldSelf(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  const kind = (node as { case?: unknown; value?: { name?: unknown } }).case;
  if (kind === 'identExpr' && (node as { value: { name: unknown } }).value.name === 'oldSelf') return true;
  return Object.values(node).some(readsOldSelf);
}
const transition = new Map<string, boolean>();
export function isTransitionRule(expression: string): boolean {
  let t = transition.get(expression);
  if (t === undefined) {
    t = readsOldSelf(parse(expression).expr);
    transition.set(expression, t);
  }
  return t;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `value` as CEL sees it under `schema`. */
export function celValue(schema: JsonSchema | undefined, value: unknown): CelInput {
  if (typeof value === 'number') {
    const type = schema?.['x-kubernetes-int-or-string'] ? 'integer' : schema?.type;
    if (type === 'number') return value;
    return Number.isInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) {
    const items = schema?.items as JsonSchema | undefined;
    return value.map((v) => celValue(items, v));
  }
  if (isObject(value)) {
    const declared = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const extra = schema?.additionalProperties as JsonSchema | undefined;
    return new Map(Object.entries(value).map(([k, v]) => [k, celValue(declared[k] ?? extra, v)]));
  }
  return value as CelInput;
}

const ERROR_TYPE: Record<NonNullable<Rule['reason']>, FieldErrorType> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueForbidden: 'Forbidden',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
};

/** A rule's fieldPath (`.a.b`, `[0]`, `['a']`) below `path`. */
function fieldAt(path: string, fieldPath: string | undefined): string {
  if (!fieldPath) return path;
  const joined = path + fieldPath.replace(/\['([^']*)'\]/g, '.$1');
  return joined.startsWith('.') ? joined.slice(1) : joined;
}

/** The failure of `rule` on `self`, or undefined when it holds. `at`: where the rule sits in the schema. */
function evaluate(
  rule: Rule,
  raw: unknown,
  self: CelInput,
  path: string,
  at: string,
): FieldError | undefined {
  const result = program(rule.rule)({ self });
  if (result === true) return undefined;
  const type = ERROR_TYPE[rule.reason ?? 'FieldValueInvalid'];
  const field = fieldAt(path, rule.fieldPath);
  // The API server shows a scalar value, and no value for an object or a list.
  const value = typeof raw === 'object' ? undefined : raw;
  const source = `${at} ${rule.rule}`;
  if (isCelError(result) || typeof result !== 'boolean') {
    const why = isCelError(result) ? result.message : 'the rule does not return a bool';
    return { field, type: 'Invalid value', value, detail: `${why} evaluating rule: ${rule.rule}`, source };
  }
  let detail = rule.message ?? `failed rule: ${rule.rule}`;
  if (rule.messageExpression) {
    const m = program(rule.messageExpression)({ self });
    if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) detail = m;
  }
  if (type === 'Duplicate value') return { field, type, value, source };
  return type === 'Invalid value' ? { field, type, value, detail, source } : { field, type, detail, source };
}

/**
 * Every rule's failure in `value` (already defaulted and schema-valid) at `path`. `at` names the schema
 * location as the rule sources do (`spec.secrets[]`); `skip`: rules left out (the mutation test).
 */
export function ruleErrors(
  schema: JsonSchema,
  value: unknown,
  path: string,
  at: string,
  skip: ReadonlySet<string> = new Set(),
): FieldError[] {
  const errors: FieldError[] = [];
  walk(schema, value, path, at, skip, errors);
  return errors;
}

function walk(
  schema: JsonSchema,
  value: unknown,
  path: string,
  at: string,
  skip: ReadonlySet<string>,
  errors: FieldError[],
): void {
  if (value === undefined || value === null) return;
  // A node's rules before its children's, in the API server's order.
  const rules = (schema['x-kubernetes-validations'] ?? []) as Rule[];
  const applicable = rules.filter((r) => !isTransitionRule(r.rule) && !skip.has(`${at} ${r.rule}`));
  if (applicable.length > 0) {
    const self = celValue(schema, value);
    for (const rule of applicable) {
      const failure = evaluate(rule, value, self, path, at);
      if (failure) errors.push(failure);
    }
  }
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    if (items) for (const [i, v] of value.entries()) walk(items, v, index(path, i), `${at}[]`, skip, errors);
  } else if (isObject(value)) {
    const declared = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const extra = schema.additionalProperties as JsonSchema | undefined;
    for (const [key, v] of Object.entries(value)) {
      const s = declared[key] ?? extra;
      if (s) walk(s, v, child(path, key), declared[key] ? child(at, key) : `${at}{}`, skip, errors);
    }
  }
}
