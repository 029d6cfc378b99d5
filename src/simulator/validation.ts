/**
 * FastAPI-style 422 errors: zod issues turned into `{loc, msg, type}` with pydantic's types and
 * messages, plus the query-parameter parsers the list routes share.
 */
import type { z } from 'zod';
import type { ValidationError } from '../controlplane/schemas.ts';

export class ValidationFailure extends Error {
  readonly errors: ValidationError[];
  constructor(errors: ValidationError[]) {
    super('validation failed');
    this.errors = errors;
  }
}

type Loc = Array<string | number>;

const TYPE_NAMES: Record<string, [type: string, msg: string]> = {
  string: ['string_type', 'Input should be a valid string'],
  number: ['float_type', 'Input should be a valid number'],
  int: ['int_type', 'Input should be a valid integer'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['model_type', 'Input should be a valid dictionary or object to extract fields from'],
  record: ['dict_type', 'Input should be a valid dictionary'],
  array: ['list_type', 'Input should be a valid list'],
};

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function quoteList(values: readonly unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

function toValidationErrors(issue: z.core.$ZodIssue, input: unknown, prefix: Loc): ValidationError[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const loc = [...prefix, ...path];
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        loc: [...loc, key],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      }));
    case 'invalid_type': {
      if (valueAt(input, issue.path) === undefined) return [{ loc, msg: 'Field required', type: 'missing' }];
      const [type, msg] = TYPE_NAMES[issue.expected] ?? ['type_error', issue.message];
      return [{ loc, msg, type }];
    }
    case 'invalid_value':
      return [{ loc, msg: `Input should be ${quoteList(issue.values)}`, type: 'enum' }];
    case 'too_small':
      return [
        {
          loc,
          msg: `Input should be greater than or equal to ${String(issue.minimum)}`,
          type: 'greater_than_equal',
        },
      ];
    case 'too_big':
      return [
        {
          loc,
          msg: `Input should be less than or equal to ${String(issue.maximum)}`,
          type: 'less_than_equal',
        },
      ];
    default:
      return [{ loc, msg: `Value error, ${issue.message}`, type: 'value_error' }];
  }
}

/** Parses `input` with `schema` or throws a ValidationFailure whose locs start with `prefix`. */
export function parseOrFail<S extends z.ZodType>(schema: S, input: unknown, prefix: Loc): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationFailure(
    result.error.issues.flatMap((issue) => toValidationErrors(issue, input, prefix)),
  );
}

// ---- query parameters ----

export type Query = URLSearchParams;

/** An integer query parameter with bounds, FastAPI style: unparsable -> int_parsing, out of range. */
export function intParam(
  query: Query,
  name: string,
  bounds: { min: number; max?: number; fallback: number },
  errors: ValidationError[],
): number {
  const raw = query.get(name);
  if (raw === null) return bounds.fallback;
  const loc = ['query', name];
  if (!/^[+-]?\d+$/.test(raw.trim())) {
    errors.push({
      loc,
      msg: 'Input should be a valid integer, unable to parse string as an integer',
      type: 'int_parsing',
    });
    return bounds.fallback;
  }
  const value = Number(raw);
  if (value < bounds.min) {
    errors.push({
      loc,
      msg: `Input should be greater than or equal to ${bounds.min}`,
      type: 'greater_than_equal',
    });
  } else if (bounds.max !== undefined && value > bounds.max) {
    errors.push({ loc, msg: `Input should be less than or equal to ${bounds.max}`, type: 'less_than_equal' });
  }
  return value;
}

export function enumParam<T extends string>(
  query: Query,
  name: string,
  values: readonly T[],
  errors: ValidationError[],
): T | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  if ((values as readonly string[]).includes(raw)) return raw as T;
  errors.push({ loc: ['query', name], msg: `Input should be ${quoteList(values)}`, type: 'enum' });
  return undefined;
}

/** A list parameter accepted both repeated (`?a=1&a=2`) and comma-separated (`?a=1,2`). */
export function listParam(query: Query, name: string): string[] {
  return query
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** Each list item must be one of `values`; errors carry the item index as FastAPI does. */
export function enumListParam<T extends string>(
  query: Query,
  name: string,
  values: readonly T[],
  errors: ValidationError[],
): T[] {
  const items = listParam(query, name);
  items.forEach((item, index) => {
    if (!(values as readonly string[]).includes(item)) {
      errors.push({ loc: ['query', name, index], msg: `Input should be ${quoteList(values)}`, type: 'enum' });
    }
  });
  return items as T[];
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', 'f', 'n']);

export function boolParam(query: Query, name: string, fallback: boolean, errors: ValidationError[]): boolean {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const word = raw.toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  errors.push({
    loc: ['query', name],
    msg: 'Input should be a valid boolean, unable to interpret input',
    type: 'bool_parsing',
  });
  return fallback;
}

// ---- uuids ----

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export function uuidError(loc: Loc): ValidationError {
  return {
    loc,
    msg: 'Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-]',
    type: 'uuid_parsing',
  };
}

export function failIfAny(errors: ValidationError[]): void {
  if (errors.length > 0) throw new ValidationFailure(errors);
}
