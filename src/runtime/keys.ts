import type { KubernetesObject } from '@kubernetes/client-node';

/** The work-queue key of an object: `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(obj: KubernetesObject): string {
  const namespace = obj.metadata?.namespace ?? '';
  const name = obj.metadata?.name ?? '';
  return namespace === '' ? name : joinKey(namespace, name);
}

/**
 * `a/b` as one flat string. `${a}/${b}` makes a V8 cons string (a pair of pointers to its parts), which
 * a Map key is flattened into: a second string beside it, 32 bytes more for every key held for long (the
 * queues and the indexes hold one per object). join builds the flat string at once.
 */
export function joinKey(a: string, b: string): string {
  return [a, b].join('/');
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
