/**
 * A validation error as the API server words it (k8s.io/apimachinery's field.Error): the field's path,
 * then the reason, the value where the reason shows one, and the detail.
 */

export type FieldErrorType =
  | 'Required value'
  | 'Forbidden'
  | 'Invalid value'
  | 'Unsupported value'
  | 'Duplicate value'
  | 'Too long'
  | 'Too many'
  | 'field not declared in schema';

export interface FieldError {
  field: string;
  type: FieldErrorType;
  /** Shown for Invalid, Unsupported, Duplicate and Too many; absent for the others. */
  value?: unknown;
  detail?: string;
  /** A wrong type (the API server then skips the CEL rules: they would not type-check). */
  blocking?: boolean;
  /** The check that failed: its place in the schema and keyword or rule (`spec.secrets[] maxItems`). */
  source?: string;
}

/** A value as the API server prints it: strings quoted, numbers bare, objects and lists by type. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (value === null || value === undefined) return 'null';
  return Array.isArray(value) ? '"array"' : '"object"';
}

export function formatFieldError(e: FieldError): string {
  if (e.type === 'field not declared in schema') return `${e.field}: ${e.type}`;
  const value = e.value === undefined ? '' : `: ${showValue(e.value)}`;
  const detail = e.detail ? `: ${e.detail}` : '';
  return `${e.field}: ${e.type}${value}${detail}`;
}

/** The API server's summary: `Kind.group "name" is invalid: <error>` or `[<error>, <error>]`. */
export function formatInvalid(kindGroup: string, name: string, errors: readonly FieldError[]): string {
  const list = errors.map(formatFieldError);
  const body = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  return `${kindGroup} ${JSON.stringify(name)} is invalid: ${body}`;
}

/** A JSON path as the API server writes it: `spec.volumes[0].name`. */
export const child = (path: string, key: string) => (path ? `${path}.${key}` : key);
export const index = (path: string, i: number) => `${path}[${i}]`;
