/**
 * The native Kubernetes shapes of resourceSpec (Volume, VolumeMount, Container, EnvVar,
 * ResourceRequirements), taken from Kubernetes' own OpenAPI (./kubernetes/native.ts) and limited to what
 * the interface document allows. The document's field lists are its wire schemas
 * (src/controlplane/schemas.ts); a field Kubernetes has and the document does not list is declared only
 * so that a CEL rule can refuse it by name (pruning would otherwise drop it silently).
 */
import { z } from 'zod';
import {
  VOLUME_SOURCE_KINDS,
  Container as WireContainer,
  EnvVar as WireEnvVar,
  ResourceRequirements as WireResourceRequirements,
  VolumeMount as WireVolumeMount,
} from '../controlplane/schemas.ts';
import { type CelRule, cel, celUnique, dnsLabel, envName, freeForm } from './common.ts';
import { kubeDescription, kubeObject } from './kubernetes/native.ts';
import { CORE_V1 } from './kubernetes/openapi.ts';

export const RS = 'spec.sourceConfig.resourceSpec';

// Bounds keep the CEL rules' estimated cost within what the API server accepts.
export const MAX_VOLUMES = 64;
export const MAX_MOUNTS = 64;
export const MAX_CONTAINERS = 10;
const MAX_ENV = 128;

const KubeVolume = kubeObject(`${CORE_V1}Volume`);
const KubeVolumeMount = kubeObject(`${CORE_V1}VolumeMount`);
const KubeContainer = kubeObject(`${CORE_V1}Container`);
const KubeEnvVar = kubeObject(`${CORE_V1}EnvVar`);
const KubeResourceRequirements = kubeObject(`${CORE_V1}ResourceRequirements`);

/** `schema` with any object inside it free-form: just enough type for CEL to see the field. */
function loosened(schema: z.ZodType): z.ZodType {
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  if (inner instanceof z.ZodObject || inner instanceof z.ZodRecord) return freeForm();
  if (inner instanceof z.ZodArray) return z.array(loosened(inner.element as z.ZodType));
  return inner;
}

/** A field Kubernetes has and the control plane does not take: declared loosely, refused by a CEL rule. */
function refused(native: z.ZodType) {
  return loosened(native).optional().describe('Not accepted by the control plane: refused at admission.');
}

/** A Kubernetes field made required, keeping its description. */
function required(object: z.ZodObject, field: string): z.ZodType {
  const schema = object.shape[field];
  if (!(schema instanceof z.ZodOptional)) throw new Error(`${field} is already required`);
  return (schema.unwrap() as z.ZodType).describe(kubeDescription(object, field));
}

/**
 * `native` with only the `allowed` fields (optionally replaced by `overrides`); every other field of
 * `native` is declared as refused, with `refusal(field)` as its message.
 */
function limited(
  native: z.ZodObject,
  allowed: readonly string[],
  refusal: (field: string) => string,
  overrides: Record<string, z.ZodType> = {},
  rules: CelRule[] = [],
) {
  const missing = allowed.filter((field) => !(field in native.shape));
  if (missing.length > 0) throw new Error(`Kubernetes has no field ${missing.join(', ')}`);
  const shape: Record<string, z.ZodType> = {};
  const refusals: CelRule[] = [];
  for (const [field, schema] of Object.entries(native.shape)) {
    if (allowed.includes(field)) {
      shape[field] = overrides[field] ?? schema;
    } else {
      shape[field] = refused(schema as z.ZodType);
      refusals.push({
        rule: `!has(self.${field})`,
        message: refusal(field),
        fieldPath: `.${field}`,
        reason: 'FieldValueForbidden',
      });
    }
  }
  return z.object(shape).meta(cel(...refusals, ...rules));
}

const fieldsOf = (wire: z.ZodObject) => Object.keys(wire.shape);

// ---- Volume ----

const VOLUMES = `${RS}.volumes[]`;

export const Volume = limited(
  KubeVolume,
  ['name', ...VOLUME_SOURCE_KINDS],
  (field) =>
    `${VOLUMES}.${field} is not a volume source the control plane accepts (${VOLUME_SOURCE_KINDS.join(', ')})`,
  { name: dnsLabel(`${VOLUMES}.name`).describe(kubeDescription(KubeVolume, 'name')) },
  [
    {
      rule: `[${VOLUME_SOURCE_KINDS.map((kind) => `has(self.${kind})`).join(', ')}].exists_one(x, x)`,
      message: `${VOLUMES} must set exactly one volume source: one of ${VOLUME_SOURCE_KINDS.join(', ')}`,
    },
  ],
);
export type Volume = z.infer<typeof Volume>;

// ---- VolumeMount ----

/** A VolumeMount at `path` (e.g. `spec...sidecars[].volumeMounts[]`). */
export function volumeMount(path: string) {
  return limited(
    KubeVolumeMount,
    fieldsOf(WireVolumeMount),
    (field) => `${path}.${field} is not a volume mount field the control plane accepts`,
    {
      // Bounded like a volume's name (a DNS label), which it must match.
      name: z.string().min(1).max(63).describe(kubeDescription(KubeVolumeMount, 'name')),
    },
  );
}

export function volumeMounts(path: string, description: string) {
  return z
    .array(volumeMount(`${path}[]`))
    .max(MAX_MOUNTS)
    .describe(description);
}

// ---- EnvVar ----

function envVar(path: string) {
  return limited(
    KubeEnvVar,
    fieldsOf(WireEnvVar),
    (field) => `${path}.${field} is not an env var field the control plane accepts`,
    { name: envName(`${path}.name`).describe(kubeDescription(KubeEnvVar, 'name')) },
    [
      {
        rule: "!(has(self.valueFrom) && has(self.value) && self.value != '')",
        message: `${path}: value and valueFrom must not both be set`,
      },
    ],
  );
}

// ---- Container ----

/** The restart policies the document allows (on sidecars only). */
export const ContainerRestartPolicy = WireContainer.shape.restartPolicy.unwrap();

/**
 * core/v1 Container limited to the fields the document lists; init containers also without
 * restartPolicy, which the document allows on sidecars only.
 */
function container(field: 'initContainers' | 'sidecars') {
  const path = `${RS}.${field}[]`;
  const allowed = fieldsOf(WireContainer).filter((f) => field === 'sidecars' || f !== 'restartPolicy');
  const describe = (name: string) => kubeDescription(KubeContainer, name);
  return limited(
    KubeContainer,
    allowed,
    (name) =>
      name === 'restartPolicy'
        ? `${path}.restartPolicy is allowed on sidecars only`
        : `${path}.${name} is not a container field the control plane accepts`,
    {
      name: dnsLabel(`${path}.name`).describe(describe('name')),
      image: required(KubeContainer, 'image'),
      env: z
        .array(envVar(`${path}.env[]`))
        .max(MAX_ENV)
        .optional()
        .describe(describe('env')),
      resources: limited(
        KubeResourceRequirements,
        fieldsOf(WireResourceRequirements),
        (name) => `${path}.resources.${name} is not a resources field the control plane accepts`,
      )
        .optional()
        .describe(describe('resources')),
      volumeMounts: volumeMounts(`${path}.volumeMounts`, describe('volumeMounts')).optional(),
      restartPolicy: ContainerRestartPolicy.optional().describe(describe('restartPolicy')),
    },
  );
}

export const InitContainer = container('initContainers');
export const Sidecar = container('sidecars');
export type Container = z.infer<typeof Sidecar>;

/** A list of containers with unique names. */
export function containers(field: 'initContainers' | 'sidecars', description: string) {
  return z
    .array(field === 'sidecars' ? Sidecar : InitContainer)
    .max(MAX_CONTAINERS)
    .meta(cel(celUnique('name', `${RS}.${field}[].name must be unique`)))
    .describe(description);
}
