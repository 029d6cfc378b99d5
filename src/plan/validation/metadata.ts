/**
 * The API server's checks of an object's metadata on a create (k8s.io/apimachinery's ObjectMeta
 * validation), worded as it words them: the name a DNS subdomain, label keys and annotation keys
 * qualified names, label values valid label values, the annotations 256 KiB at most.
 */
import type { FieldError } from './field-error.ts';

const SUBDOMAIN = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const SUBDOMAIN_MESSAGE = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${SUBDOMAIN}')`;
const NAME_PART = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const NAME_PART_MESSAGE = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${NAME_PART}')`;
const QUALIFIED_MESSAGE = `a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${NAME_PART}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
const LABEL_VALUE = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
const LABEL_VALUE_MESSAGE = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${LABEL_VALUE}')`;

const ANNOTATIONS_MAX_BYTES = 256 * 1024;

/** Lengths as Go counts them: bytes of UTF-8. */
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const whole = (pattern: string) => new RegExp(`^${pattern}$`);
const isSubdomain = (s: string) => bytes(s) <= 253 && whole(SUBDOMAIN).test(s);

/** What is wrong with a qualified name (`prefix/name` or `name`), as the API server lists it. */
function qualifiedNameProblems(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2) return [QUALIFIED_MESSAGE];
  const name = parts.at(-1) as string;
  const problems: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    if (prefix.length === 0) problems.push('prefix part must be non-empty');
    else if (bytes(prefix) > 253) problems.push('prefix part must be no more than 253 bytes');
    else if (!whole(SUBDOMAIN).test(prefix)) problems.push(`prefix part ${SUBDOMAIN_MESSAGE}`);
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (bytes(name) > 63) problems.push('name part must be no more than 63 bytes');
  if (name.length > 0 && !whole(NAME_PART).test(name)) problems.push(NAME_PART_MESSAGE);
  return problems;
}

export interface Metadata {
  name: string;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export function metadataErrors(metadata: Metadata): FieldError[] {
  const errors: FieldError[] = [];
  const invalid = (field: string, value: unknown, detail: string) =>
    errors.push({ field, type: 'Invalid value', value, detail });
  const { name } = metadata;
  if (!isSubdomain(name))
    invalid(
      'metadata.name',
      name,
      bytes(name) > 253 ? 'must be no more than 253 characters' : SUBDOMAIN_MESSAGE,
    );
  for (const [key, value] of Object.entries(metadata.labels ?? {})) {
    for (const problem of qualifiedNameProblems(key)) invalid('metadata.labels', key, problem);
    const text = String(value);
    if (bytes(text) > 63) invalid('metadata.labels', text, 'must be no more than 63 bytes');
    if (!whole(LABEL_VALUE).test(text)) invalid('metadata.labels', text, LABEL_VALUE_MESSAGE);
  }
  let size = 0;
  for (const [key, value] of Object.entries(metadata.annotations ?? {})) {
    for (const problem of qualifiedNameProblems(key.toLowerCase()))
      invalid('metadata.annotations', key, problem);
    size += bytes(key) + bytes(String(value));
  }
  if (size > ANNOTATIONS_MAX_BYTES)
    errors.push({
      field: 'metadata.annotations',
      type: 'Too long',
      detail: `may not be more than ${ANNOTATIONS_MAX_BYTES} bytes`,
    });
  return errors;
}
