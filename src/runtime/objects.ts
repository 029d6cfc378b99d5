import type { KubernetesObject } from '@kubernetes/client-node';
import { z } from 'zod';
import type { KubeAccess } from '../kube/access.ts';
import { ConflictError, KubeApiError } from '../kube/errors.ts';
import { kubeRequest } from '../kube/request.ts';

/** A kind's REST coordinates; group '' is the core group (/api/v1). */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
}

/** One object; namespace '' for cluster-scoped kinds. */
export interface ObjectRef {
  resource: ResourceType;
  namespace: string;
  name: string;
}

/** The collection path of a resource, in one namespace or ('' / undefined) across all. */
export function resourcePath(resource: ResourceType, namespace?: string): string {
  const prefix =
    resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${prefix}${ns}/${resource.plural}`;
}

export function objectPath(ref: ObjectRef): string {
  return `${resourcePath(ref.resource, ref.namespace)}/${encodeURIComponent(ref.name)}`;
}

const ObjectMeta = z.looseObject({
  name: z.string().optional(),
  namespace: z.string().optional(),
  resourceVersion: z.string().optional(),
  finalizers: z.array(z.string()).optional(),
});
const ApiObject = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMeta,
});

function asObject<T extends KubernetesObject>(body: unknown): T {
  return ApiObject.parse(body) as T;
}

/** GET one object. Throws NotFoundError on 404. */
export async function getObject<T extends KubernetesObject>(
  access: KubeAccess,
  ref: ObjectRef,
  signal?: AbortSignal,
): Promise<T> {
  return asObject<T>(await kubeRequest(access, { method: 'GET', path: objectPath(ref), signal }));
}

/**
 * Merge-patches the status subresource. Only the fields given change; null removes a field; arrays
 * (conditions) are replaced whole. With `resourceVersion` (the version the status was computed from)
 * the API server applies it only to that version and answers 409 (ConflictError) otherwise: a merge
 * patch computed against an older version would otherwise merge two passes' statuses into one that
 * neither wrote (a Ready of one generation beside the observedGeneration of another). Throws
 * NotFoundError on 404.
 */
export async function patchStatus<T extends KubernetesObject>(
  access: KubeAccess,
  ref: ObjectRef,
  status: Record<string, unknown>,
  signal?: AbortSignal,
  resourceVersion?: string,
): Promise<T> {
  const body = await kubeRequest(access, {
    method: 'PATCH',
    path: `${objectPath(ref)}/status`,
    body: resourceVersion === undefined ? { status } : { metadata: { resourceVersion }, status },
    contentType: 'application/merge-patch+json',
    signal,
  });
  return asObject<T>(body);
}

type JsonPatchOp =
  | { op: 'test' | 'add' | 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/**
 * The guard for a finalizer patch: the finalizers as last seen, or the whole object's
 * resourceVersion when it had none (an `add` on a missing member cannot be made conditional).
 */
function guard(current: KubernetesObject): JsonPatchOp {
  const finalizers = current.metadata?.finalizers;
  if (finalizers && finalizers.length > 0)
    return { op: 'test', path: '/metadata/finalizers', value: finalizers };
  return { op: 'test', path: '/metadata/resourceVersion', value: current.metadata?.resourceVersion };
}

async function jsonPatch<T extends KubernetesObject>(
  access: KubeAccess,
  ref: ObjectRef,
  ops: JsonPatchOp[],
  signal: AbortSignal | undefined,
): Promise<T> {
  try {
    const body = await kubeRequest(access, {
      method: 'PATCH',
      path: objectPath(ref),
      body: ops,
      contentType: 'application/json-patch+json',
      signal,
    });
    return asObject<T>(body);
  } catch (err) {
    // The API server answers a failed `test` op with 422: the object changed since it was read.
    if (err instanceof KubeApiError && err.status === 422) throw new ConflictError(err.message, 422);
    throw err;
  }
}

/**
 * Adds a finalizer unless present, guarded so a concurrent writer's change is never overwritten.
 * `current` is the object as last seen (e.g. from the informer); it is read when absent.
 * Throws ConflictError when the object changed meanwhile (re-read and retry), NotFoundError on 404.
 */
export async function addFinalizer<T extends KubernetesObject>(
  access: KubeAccess,
  ref: ObjectRef,
  finalizer: string,
  current?: T,
  signal?: AbortSignal,
): Promise<T> {
  const seen = current ?? (await getObject<T>(access, ref, signal));
  const finalizers = seen.metadata?.finalizers ?? [];
  if (finalizers.includes(finalizer)) return seen;
  const add: JsonPatchOp =
    finalizers.length > 0
      ? { op: 'add', path: '/metadata/finalizers/-', value: finalizer }
      : { op: 'add', path: '/metadata/finalizers', value: [finalizer] };
  return jsonPatch<T>(access, ref, [guard(seen), add], signal);
}

/** Removes a finalizer if present; same guard and errors as addFinalizer. */
export async function removeFinalizer<T extends KubernetesObject>(
  access: KubeAccess,
  ref: ObjectRef,
  finalizer: string,
  current?: T,
  signal?: AbortSignal,
): Promise<T> {
  const seen = current ?? (await getObject<T>(access, ref, signal));
  const index = (seen.metadata?.finalizers ?? []).indexOf(finalizer);
  if (index < 0) return seen;
  return jsonPatch<T>(
    access,
    ref,
    [guard(seen), { op: 'remove', path: `/metadata/finalizers/${index}` }],
    signal,
  );
}
