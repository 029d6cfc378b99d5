// Objects the CRD tests apply, and the API server's refusal messages.
import type { KubernetesObject } from '@kubernetes/client-node';
import { AGENT_DEPLOYMENT, API_VERSION } from '../../src/api/group.ts';

export type Obj = KubernetesObject & {
  metadata: { name: string; namespace?: string };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
};
export type Mutate = (o: Obj) => void;

/** A valid external_image AgentDeployment with a volume, a mount, an init container and a sidecar. */
export function externalImageObject(namespace: string | undefined, name = 'image-agent'): Obj {
  return {
    apiVersion: API_VERSION,
    kind: AGENT_DEPLOYMENT.kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: {
      source: 'external_image',
      sourceConfig: {
        listenerId: '7d9e2f41-5c3b-4a8e-b6d0-2e1f3a4b5c6d',
        listenerConfig: { k8sNamespace: 'agents' },
        resourceSpec: {
          cpu: 1,
          volumes: [{ name: 'scratch', emptyDir: {} }],
          volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
          initContainers: [{ name: 'init', image: 'busybox:1.36' }],
          sidecars: [{ name: 'shipper', image: 'fluent/fluent-bit:3.2' }],
        },
      },
      sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1.0.0' },
      secrets: [{ name: 'LOG_LEVEL', value: 'info' }],
    },
  };
}

/** obj.spec at a dotted path below spec, created on the way. */
export function at(o: Obj, path: string): Record<string, unknown> {
  let node = o.spec;
  for (const key of path.split('.').filter(Boolean)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  return node;
}
export const rs = (o: Obj) => at(o, 'sourceConfig.resourceSpec');
export const sidecar = (o: Obj) =>
  (rs(o).sidecars as Record<string, unknown>[])[0] as Record<string, unknown>;
export const initContainer = (o: Obj) =>
  (rs(o).initContainers as Record<string, unknown>[])[0] as Record<string, unknown>;

function errorMessage(err: unknown): string {
  const e = err as { body?: unknown; message?: string };
  if (typeof e.body === 'string') {
    try {
      return String((JSON.parse(e.body) as { message?: string }).message);
    } catch {
      return e.body;
    }
  }
  if (e.body && typeof e.body === 'object') return String((e.body as { message?: string }).message);
  return String(e.message);
}

/** The API server's refusal message, or undefined when it accepted the object. */
export async function refusal(action: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await action();
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}
