// Objects made from a CRD's schema, for test/plan-validation-agreement.test.ts: every check the schema
// carries (enum, minimum, maximum, minLength, maxLength, pattern, maxItems, required, each
// x-kubernetes-validations rule) found where it sits, a valid value placed at each field, and, where
// the schema makes one without judgement, a value breaking a check. The API server judges them all.
import { RE2JS } from '@bufbuild/re2';
import type { JsonSchema } from '../../src/api/structural.ts';
import { isTransitionRule, type Rule } from '../../src/plan/validation/cel-rules.ts';
import type { Mutate, Obj } from './crd-objects.ts';

/** One check of a schema, named as the offline validator names the check it applies (its `source`). */
export interface SchemaCheck {
  /** The field's place in the schema: `spec.secrets[].name`, `[]` an item, `{}` a map value. */
  at: string;
  keyword: 'enum' | 'minimum' | 'maximum' | 'minLength' | 'maxLength' | 'pattern' | 'maxItems' | 'required';
  /** The required field's name; the rule's text. */
  detail?: string;
  schema: JsonSchema;
}
export interface RuleCheck {
  at: string;
  rule: Rule;
  schema: JsonSchema;
}

const KEYWORDS = ['enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'maxItems'] as const;

export const sourceOf = (c: SchemaCheck | RuleCheck) =>
  'rule' in c
    ? `${c.at} ${c.rule.rule}`
    : c.keyword === 'required'
      ? `${c.at} required ${c.detail}`
      : `${c.at} ${c.keyword}`;

const child = (at: string, key: string) => (at ? `${at}.${key}` : key);

/** Every field of the schema with its place: `visit(at, schema)`. `status` is left out (a create drops it). */
export function eachField(root: JsonSchema, visit: (at: string, schema: JsonSchema) => void): void {
  const walk = (at: string, s: JsonSchema) => {
    visit(at, s);
    for (const [key, p] of Object.entries((s.properties ?? {}) as Record<string, JsonSchema>)) {
      if (at === '' && key === 'status') continue;
      walk(child(at, key), p);
    }
    if (s.items) walk(`${at}[]`, s.items as JsonSchema);
    if (typeof s.additionalProperties === 'object') walk(`${at}{}`, s.additionalProperties as JsonSchema);
  };
  walk('', root);
}

/** The checks a create can break: every keyword above and every rule but the transition rules. */
export function checksOf(root: JsonSchema): {
  checks: SchemaCheck[];
  rules: RuleCheck[];
  transition: RuleCheck[];
} {
  const checks: SchemaCheck[] = [];
  const rules: RuleCheck[] = [];
  const transition: RuleCheck[] = [];
  eachField(root, (at, schema) => {
    for (const keyword of KEYWORDS) if (schema[keyword] !== undefined) checks.push({ at, keyword, schema });
    for (const key of (schema.required ?? []) as string[])
      checks.push({ at, keyword: 'required', detail: key, schema });
    for (const rule of (schema['x-kubernetes-validations'] ?? []) as Rule[]) {
      (isTransitionRule(rule.rule) ? transition : rules).push({ at, rule, schema });
    }
  });
  return { checks, rules, transition };
}

const re = (pattern: string) => RE2JS.compile(pattern);

/** A small valid value of the schema (as far as its own keywords go; rules higher up may still refuse). */
export function sample(s: JsonSchema): unknown {
  if (s.default !== undefined) return structuredClone(s.default);
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s['x-kubernetes-int-or-string']) return 1;
  switch (s.type) {
    case 'string': {
      const rules = JSON.stringify(s['x-kubernetes-validations'] ?? '');
      const candidates = rules.includes('duration(') ? ['1m'] : ['a', '1', 'a1', 'A', '0 0 * * *'];
      const fits = (c: string) => typeof s.pattern !== 'string' || re(s.pattern).test(c);
      return candidates.find(fits) ?? 'a';
    }
    case 'integer':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'number':
      return typeof s.minimum === 'number' ? Math.max(s.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    default: {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = (s.required ?? []) as string[];
      return Object.fromEntries(required.map((k) => [k, sample(props[k] ?? {})]));
    }
  }
}

/** A value of another type than the schema's (undefined where any value goes). */
export function wrongType(s: JsonSchema): unknown {
  if (s['x-kubernetes-int-or-string']) return true;
  switch (s.type) {
    case 'string':
      return 5;
    case 'integer':
    case 'number':
    case 'boolean':
    case 'array':
    case 'object':
      return 'x';
    default:
      return undefined;
  }
}

/** A value breaking the keyword, or undefined when none is obvious. */
function breaking(c: SchemaCheck): unknown {
  const s = c.schema;
  switch (c.keyword) {
    case 'enum':
      return s.type === 'string' ? 'not-a-member' : 987654;
    case 'minimum':
      return (s.minimum as number) - 1;
    case 'maximum':
      return (s.maximum as number) + 1;
    case 'minLength':
      return '';
    case 'maxLength':
      return 'a'.repeat((s.maxLength as number) + 1);
    case 'pattern':
      return ['!', ' ', 'a b', '-', '.', 'a\nb'].find((c) => !re(s.pattern as string).test(c));
    case 'maxItems':
      return Array.from({ length: (s.maxItems as number) + 1 }, () => sample(s.items as JsonSchema));
    case 'required': {
      const value = sample(s) as Record<string, unknown>;
      delete value[c.detail as string];
      return value;
    }
  }
}

/**
 * Sets `value` at the schema place `at` in `o`, making what lies on the way from the schema: a list's
 * first item (made when the list is empty), a map's key `k`.
 */
export function placeAt(root: JsonSchema, at: string, value: unknown): Mutate {
  const steps = at.match(/[^.[\]{}]+|\[\]|\{\}/g) ?? [];
  return (o: Obj) => {
    let node = o as unknown as Record<string, unknown> | unknown[];
    let schema = root;
    steps.forEach((step, i) => {
      const last = i === steps.length - 1;
      const key: string | number = step === '[]' ? 0 : step === '{}' ? 'k' : step;
      schema = (
        step === '[]'
          ? schema.items
          : step === '{}'
            ? schema.additionalProperties
            : (schema.properties as Record<string, JsonSchema>)[step]
      ) as JsonSchema;
      const container = node as Record<string | number, unknown>;
      if (last) container[key] = structuredClone(value);
      else {
        container[key] ??= sample(schema);
        node = container[key] as Record<string, unknown>;
      }
    });
  };
}

/** The edit breaking a check, or undefined when the schema gives none without judgement. */
export function breakingEdit(root: JsonSchema, c: SchemaCheck | RuleCheck): Mutate | undefined {
  if ('rule' in c) {
    // A field refused whenever it is set (its rule is `false`), broken by setting it.
    if (c.rule.rule === 'false') return placeAt(root, c.at, sample(c.schema));
    // A field the control plane does not accept: `!has(self.x)`, broken by setting x.
    const forbidden = /^!has\(self\.([A-Za-z0-9_]+)\)$/.exec(c.rule.rule)?.[1];
    if (!forbidden) return undefined;
    const props = (c.schema.properties ?? {}) as Record<string, JsonSchema>;
    return placeAt(root, child(c.at, forbidden), sample(props[forbidden] ?? {}));
  }
  const value = breaking(c);
  if (value === undefined) return undefined;
  if (c.keyword === 'required' && c.at === '')
    return (o) => {
      delete (o as unknown as Record<string, unknown>)[c.detail as string];
    };
  return placeAt(root, c.at, value);
}
