/**
 * Whether an object's update is worth a reconcile (pure). The informers' update handlers ask it, so
 * that the echo of the controller's own writes (status, finalizers) wakes nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';

const IGNORED_METADATA = ['resourceVersion', 'managedFields', 'finalizers'] as const;

/** An object minus what our own writes change: status, resourceVersion, managedFields, finalizers. */
function withoutOwnWrites(obj: KubernetesObject): Record<string, unknown> {
  const { status: _status, ...rest } = obj as KubernetesObject & { status?: unknown };
  const metadata: Record<string, unknown> = { ...obj.metadata };
  for (const field of IGNORED_METADATA) delete metadata[field];
  return { ...rest, metadata };
}

/**
 * Whether an update is worth a reconcile: the spec (generation), labels, annotations or
 * deletionTimestamp changed. Updates that touch only status, resourceVersion, managedFields or
 * finalizers are our own writes echoing back. Kinds without a generation (Secrets, ConfigMaps)
 * count any other change.
 */
export function shouldEnqueueUpdate(oldObj: KubernetesObject, newObj: KubernetesObject): boolean {
  const before = oldObj.metadata ?? {};
  const after = newObj.metadata ?? {};
  if (before.generation === undefined && after.generation === undefined) {
    return !isDeepStrictEqual(withoutOwnWrites(oldObj), withoutOwnWrites(newObj));
  }
  return (
    before.generation !== after.generation ||
    !isDeepStrictEqual(before.labels ?? {}, after.labels ?? {}) ||
    !isDeepStrictEqual(before.annotations ?? {}, after.annotations ?? {}) ||
    String(before.deletionTimestamp ?? '') !== String(after.deletionTimestamp ?? '')
  );
}
