import type { KubernetesObject } from '@kubernetes/client-node';

/** The work-queue key of an object: `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(obj: KubernetesObject): string {
  const namespace = obj.metadata?.namespace ?? '';
  const name = obj.metadata?.name ?? '';
  return namespace === '' ? name : `${namespace}/${name}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
