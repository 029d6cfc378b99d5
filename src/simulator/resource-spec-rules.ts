/**
 * The document's shape rules inside resource_spec ("Supporting shapes"): volume and container names are
 * DNS labels, volume names unique within the pod, a mount names a volume, env names are C identifiers,
 * valueFrom is unusable with a non-empty value, restartPolicy is for sidecars, and no field the
 * document does not list. Errors in the document's HTTPValidationError form, FastAPI style.
 */
import {
  Container,
  EnvVar,
  type ResourceSpec,
  type ValidationError,
  Volume,
  VolumeMount,
} from '../controlplane/schemas.ts';

type Loc = Array<string | number>;
type Item = Record<string, unknown>;

const SPEC_LOC = ['body', 'source_config', 'resource_spec'];
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const valueError = (loc: Loc, msg: string): ValidationError => ({
  loc,
  msg: `Value error, ${msg}`,
  type: 'value_error',
});

function items(list: unknown): Item[] {
  return Array.isArray(list) ? list.filter((i): i is Item => !!i && typeof i === 'object') : [];
}

/** Fields of `item` its document shape does not list. */
function extraFields(item: Item, allowed: readonly string[], loc: Loc): ValidationError[] {
  return Object.keys(item)
    .filter((key) => !allowed.includes(key))
    .map((key) => ({ loc: [...loc, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }));
}

function dnsLabel(value: unknown, loc: Loc): ValidationError[] {
  if (typeof value !== 'string' || (value.length <= 63 && DNS_LABEL.test(value))) return [];
  return [valueError(loc, 'name must be a DNS label (RFC 1123), at most 63 characters')];
}

const VOLUME_FIELDS = Object.keys(Volume.shape);
const MOUNT_FIELDS = Object.keys(VolumeMount.shape);
const CONTAINER_FIELDS = Object.keys(Container.shape);
const ENV_FIELDS = Object.keys(EnvVar.shape);

function mountErrors(mounts: unknown, volumeNames: ReadonlySet<unknown>, loc: Loc): ValidationError[] {
  return items(mounts).flatMap((mount, i) => [
    ...extraFields(mount, MOUNT_FIELDS, [...loc, i]),
    ...(volumeNames.has(mount.name)
      ? []
      : [
          valueError(
            [...loc, i, 'name'],
            `volume mount name '${String(mount.name)}' must match a volume name`,
          ),
        ]),
  ]);
}

function envErrors(env: unknown, loc: Loc): ValidationError[] {
  return items(env).flatMap((variable, i) => [
    ...extraFields(variable, ENV_FIELDS, [...loc, i]),
    ...(typeof variable.name === 'string' && !C_IDENTIFIER.test(variable.name)
      ? [valueError([...loc, i, 'name'], 'name must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)')]
      : []),
    ...(variable.valueFrom != null && typeof variable.value === 'string' && variable.value !== ''
      ? [valueError([...loc, i, 'valueFrom'], 'valueFrom cannot be used when value is not empty')]
      : []),
  ]);
}

function containerErrors(
  field: 'init_containers' | 'sidecars',
  list: unknown,
  volumeNames: ReadonlySet<unknown>,
): ValidationError[] {
  return items(list).flatMap((container, i) => {
    const loc = [...SPEC_LOC, field, i];
    return [
      ...extraFields(container, CONTAINER_FIELDS, loc),
      ...dnsLabel(container.name, [...loc, 'name']),
      ...(field === 'init_containers' && container.restartPolicy != null
        ? [valueError([...loc, 'restartPolicy'], 'restartPolicy is allowed for sidecars only')]
        : []),
      ...envErrors(container.env, [...loc, 'env']),
      ...mountErrors(container.volumeMounts, volumeNames, [...loc, 'volumeMounts']),
    ];
  });
}

/** Every shape rule resource_spec breaks. */
export function checkResourceSpecShapes(spec: ResourceSpec): ValidationError[] {
  const volumes = items(spec.volumes);
  const volumeNames = new Set(volumes.map((v) => v.name));
  const seen = new Set<unknown>();
  const volumeErrors = volumes.flatMap((volume, i) => {
    const loc = [...SPEC_LOC, 'volumes', i];
    const duplicate = seen.has(volume.name);
    seen.add(volume.name);
    return [
      ...extraFields(volume, VOLUME_FIELDS, loc),
      ...dnsLabel(volume.name, [...loc, 'name']),
      ...(duplicate
        ? [valueError([...loc, 'name'], `volume name '${String(volume.name)}' must be unique within the pod`)]
        : []),
    ];
  });
  return [
    ...volumeErrors,
    ...mountErrors(spec.volume_mounts, volumeNames, [...SPEC_LOC, 'volume_mounts']),
    ...containerErrors('init_containers', spec.init_containers, volumeNames),
    ...containerErrors('sidecars', spec.sidecars, volumeNames),
  ];
}
