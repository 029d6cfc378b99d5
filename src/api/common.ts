/**
 * Building blocks shared by the CRD schemas. Kubernetes-specific schema facts travel as zod metadata
 * (`x-kubernetes-*` keys), which `z.toJSONSchema` copies into the generated schema and the generator
 * (src/api/structural.ts) turns into a structural OpenAPI v3 schema.
 */
import { z } from 'zod';
import { ConditionType, Reason } from './names.ts';

/** One CEL rule as the CRD's `x-kubernetes-validations` carries it. */
export type CelRule = {
  rule: string;
  message: string;
  /** Relative to the node the rule sits on, e.g. `.sourceConfig.repoUrl`: where the error is reported. */
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
};

/** zod metadata carrying CEL rules: `.meta({ description, ...cel(rule, ...) })`. */
export function cel(...rules: CelRule[]): { 'x-kubernetes-validations': CelRule[] } {
  return { 'x-kubernetes-validations': rules };
}

/** CEL for "every step of this field path is present": has(a.b) && has(a.b.c) ... */
export function celHas(root: string, path: readonly string[]): string {
  return path.map((_, i) => `has(${[root, ...path.slice(0, i + 1)].join('.')})`).join(' && ');
}

/** CEL for `root.a.b` */
export function celGet(root: string, path: readonly string[]): string {
  return [root, ...path].join('.');
}

/**
 * A transition rule making an optional field immutable: it may not appear, disappear or change after
 * creation. It sits on an object that holds the field at `path`: a transition rule runs only where the old
 * and the new object both have the node it sits on, so when that object itself may appear or disappear,
 * celImmutableBelow on its parent covers that. The API server builds a map of a node's properties at each
 * field access from it, so the rule sits as low as it can and reads as few fields as it can.
 */
export function celImmutable(path: readonly string[], message: string): CelRule {
  const now = celHas('self', path);
  const before = celHas('oldSelf', path);
  return {
    rule: `(${now}) ? (${before}) && ${celGet('self', path)} == ${celGet('oldSelf', path)} : !(${before})`,
    message,
    fieldPath: `.${path.join('.')}`,
  };
}

/**
 * The other half of celImmutable(path) on the optional object `child`: the field may not come or go with
 * `child` itself. It sits on `child`'s parent, which always exists, and costs two field accesses while
 * `child` stays (present or absent).
 */
export function celImmutableBelow(child: string, path: readonly string[], message: string): CelRule {
  const full = [child, ...path];
  return {
    rule: `has(self.${child}) == has(oldSelf.${child}) || !(${celHas('self', full)}) && !(${celHas('oldSelf', full)})`,
    message,
    fieldPath: `.${full.join('.')}`,
  };
}

/** Every item's `key` is unique within the list (the rule sits on the list). */
export function celUnique(key: string, message: string): CelRule {
  return { rule: `self.all(x, self.exists_one(y, y.${key} == x.${key}))`, message };
}

export const DNS_LABEL_CEL = "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')";
export const C_IDENTIFIER_CEL = "self.matches('^[A-Za-z_][A-Za-z0-9_]*$')";

/** Go-style duration (`90s`, `5m`, `1h30m`, `500ms`), as parseDuration and CEL's duration() read it. */
const DURATION_CEL = "self.matches('^([0-9]+(\\\\.[0-9]+)?(ms|s|m|h))+$')";

/** A duration field; `path` is its full path in the object, named by the errors. */
export function durationField(path: string, min: string, max: string) {
  return z
    .string()
    .max(32)
    .meta(
      cel(
        {
          rule: DURATION_CEL,
          message: `${path} must be a duration such as 30s, 5m or 1h`,
        },
        {
          rule: `!${DURATION_CEL} || (duration(self) >= duration('${min}') && duration(self) <= duration('${max}'))`,
          message: `${path} must be between ${min} and ${max}`,
        },
      ),
    );
}

/** An RFC 1123 label (volume and container names). `what` names the field in the message. */
export function dnsLabel(what: string) {
  return z
    .string()
    .min(1)
    .max(63)
    .meta(
      cel({
        rule: DNS_LABEL_CEL,
        message: `${what} must be a DNS label (RFC 1123): lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters`,
      }),
    );
}

/** An environment variable name: a C identifier. `what` names the field in the message. */
export function envName(what: string) {
  return z
    .string()
    .min(1)
    .max(256)
    .meta(
      cel({
        rule: C_IDENTIFIER_CEL,
        message: `${what} must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)`,
      }),
    );
}

/** The name of an object in the same namespace (a DNS subdomain, at most 253 characters). */
export function objectName() {
  return z.string().min(1).max(253);
}

/** controller-gen's quantity pattern (resource.Quantity). */
export const QUANTITY_PATTERN =
  /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;

/** A Kubernetes quantity: an integer or a string such as `500m`, `1.5`, `512Mi`, `10Gi`. */
export function quantity() {
  return z
    .union([z.int(), z.string().max(64).regex(QUANTITY_PATTERN)])
    .meta({ 'x-kubernetes-int-or-string': true });
}

/** An object the API server keeps as written (a native sub-shape the CRD does not spell out). */
export function freeForm() {
  return z.record(z.string(), z.unknown()).meta({ 'x-kubernetes-preserve-unknown-fields': true });
}

/** Entries of a string map, and characters of one value and one key (a label key: prefix/name). */
export const STRING_MAP_MAX_ENTRIES = 64;
export const STRING_MAP_MAX_VALUE = 4096;
export const STRING_MAP_MAX_KEY = 317;

/**
 * A map of string to string (labels, annotations), bounded: what one object sends is what every poll
 * of its credentials reads back, so a namespace must not make the shared answers big (issue 32).
 */
export function stringMap() {
  return z
    .record(z.string(), z.string().max(STRING_MAP_MAX_VALUE))
    .check((ctx) => {
      const keys = Object.keys(ctx.value);
      if (keys.length > STRING_MAP_MAX_ENTRIES) {
        ctx.issues.push({
          code: 'custom',
          input: ctx.value,
          message: `must have at most ${STRING_MAP_MAX_ENTRIES} entries`,
        });
      }
      if (keys.some((k) => k.length > STRING_MAP_MAX_KEY)) {
        ctx.issues.push({
          code: 'custom',
          input: ctx.value,
          message: `keys must be at most ${STRING_MAP_MAX_KEY} characters`,
        });
      }
    })
    .meta({
      maxProperties: STRING_MAP_MAX_ENTRIES,
      ...cel({
        rule: `self.all(k, size(k) <= ${STRING_MAP_MAX_KEY})`,
        message: `keys must be at most ${STRING_MAP_MAX_KEY} characters`,
      }),
    });
}

/** `{ name }` naming an object in the object's own namespace. */
export function localRef(description: string) {
  return z.object({ name: objectName().describe(description) });
}

/** metav1.Condition. */
export const Condition = z.object({
  type: z
    .string()
    .min(1)
    .max(316)
    .describe(`Type of the condition: ${Object.values(ConditionType).join(', ')}.`),
  status: z.enum(['True', 'False', 'Unknown']).describe('Status of the condition: True, False or Unknown.'),
  observedGeneration: z
    .int()
    .min(0)
    .optional()
    .describe('metadata.generation of the object when the condition was set.'),
  lastTransitionTime: z.iso.datetime().describe('When the condition last changed status (RFC 3339).'),
  reason: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
    .describe(`CamelCase reason for the last transition: ${Object.values(Reason).join(', ')}.`),
  message: z.string().max(32768).describe('Human-readable details about the last transition.'),
});
export type Condition = z.infer<typeof Condition>;

export function conditions() {
  return z
    .array(Condition)
    .max(16)
    .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] })
    .describe(
      'Conditions in kstatus style: Ready is always present; Reconciling and Stalled are present and True only while the object is in that state.',
    );
}

/**
 * The status of an object no controller has written to yet, as the API server shows it: a schema default on
 * `status`, which the API server fills in whenever it reads the object from storage (a create cannot set
 * status, so it is absent there). observedGeneration 0 differs from every metadata.generation (1 and up),
 * so kstatus (Flux health checks, Helm's --wait, kpt) reads a new object as InProgress until the
 * controller has observed it, instead of Current for want of any status at all.
 */
export const UNOBSERVED_STATUS = { observedGeneration: 0 };

/** The fields of metav1.ObjectMeta the controller reads; the CRD schema leaves metadata to the API server. */
export const ObjectMeta = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  generation: z.int().optional(),
  resourceVersion: z.string().optional(),
  // creationTimestamp and deletionTimestamp stay untyped (kept by the loose object): client-node types
  // them as Date while the JSON from the API server carries strings.
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  finalizers: z.array(z.string()).optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMeta>;

export const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.';
export const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. In CamelCase.';
