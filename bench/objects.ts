/**
 * The AgentDeployment objects of one run: creating them, updating them, and watching them through an
 * informer that records when each became Ready and counts every write (resourceVersion change).
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { z } from 'zod';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { AGENT_DEPLOYMENT, API_VERSION, GROUP, VERSION } from '../src/api/group.ts';
import type { KubeAccess } from '../src/kube/access.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { startInformer } from '../src/runtime/informer.ts';

export const IMAGE = 'registry.example.com/agent:1';
export const UPDATED_IMAGE = 'registry.example.com/agent:2';

export const agentDeploymentsPath = (ns: string) =>
  `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${AGENT_DEPLOYMENT.plural}`;

export const objectName = (i: number) => `agent-${String(i).padStart(5, '0')}`;

export async function createNamespace(access: KubeAccess, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await kubeRequest(access, {
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  return name;
}

export async function createObject(
  access: KubeAccess,
  ns: string,
  name: string,
  listenerId: string,
): Promise<void> {
  await kubeRequest(access, {
    method: 'POST',
    path: agentDeploymentsPath(ns),
    body: {
      apiVersion: API_VERSION,
      kind: AGENT_DEPLOYMENT.kind,
      metadata: { name },
      spec: {
        source: 'external_image',
        sourceConfig: { listenerId, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
        sourceRevisionConfig: { imageUri: IMAGE },
      },
    },
  });
}

export async function setImage(
  access: KubeAccess,
  ns: string,
  name: string,
  imageUri: string,
): Promise<void> {
  await kubeRequest(access, {
    method: 'PATCH',
    path: `${agentDeploymentsPath(ns)}/${name}`,
    body: { spec: { sourceRevisionConfig: { imageUri } } },
    contentType: 'application/merge-patch+json',
  });
}

export function isReady(obj: AgentDeployment): boolean {
  const ready = obj.status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.status === 'True' && obj.status?.observedGeneration === obj.metadata.generation;
}

export interface ObjectWatch {
  /** When each object was first seen Ready (at its current generation), by name. */
  readonly readyAt: ReadonlyMap<string, number>;
  /** Writes (resourceVersion changes) seen so far, by name; a counter that only grows. */
  readonly writes: ReadonlyMap<string, number>;
  totalWrites(): number;
  get(name: string): AgentDeployment | undefined;
  /** Forgets the Ready times (before a change that makes objects progress again). */
  resetReady(): void;
  synced(): boolean;
  stop(): Promise<void>;
}

export function watchObjects(access: KubeAccess, ns: string): ObjectWatch {
  const readyAt = new Map<string, number>();
  const writes = new Map<string, number>();
  let total = 0;
  const seen = (obj: AgentDeployment) => {
    if (isReady(obj)) {
      if (!readyAt.has(obj.metadata.name)) readyAt.set(obj.metadata.name, Date.now());
    } else {
      readyAt.delete(obj.metadata.name);
    }
  };
  const informer = startInformer<AgentDeployment>({
    access,
    path: `/apis/${GROUP}/${VERSION}/${AGENT_DEPLOYMENT.plural}`,
    namespaces: [ns],
    logger: pino({ level: 'silent' }),
    onAdd: seen,
    onUpdate: (before, after) => {
      if (before.metadata.resourceVersion !== after.metadata.resourceVersion) {
        writes.set(after.metadata.name, (writes.get(after.metadata.name) ?? 0) + 1);
        total += 1;
      }
      seen(after);
    },
  });
  return {
    readyAt,
    writes,
    totalWrites: () => total,
    get: (name) => informer.get(ns, name),
    resetReady: () => readyAt.clear(),
    synced: () => informer.hasSynced(),
    stop: () => informer.stop(),
  };
}

const EventList = z.object({
  items: z.array(
    z.object({
      metadata: z.object({ name: z.string(), resourceVersion: z.string() }),
      reason: z.string().optional(),
      involvedObject: z.object({ name: z.string().optional() }).optional(),
    }),
  ),
});

/** Event objects in a namespace, as name -> resourceVersion and reason (a new or bumped event is a write). */
export async function eventVersions(
  access: KubeAccess,
  ns: string,
): Promise<Map<string, { resourceVersion: string; reason: string; about: string }>> {
  const list = EventList.parse(
    await kubeRequest(access, { method: 'GET', path: `/api/v1/namespaces/${ns}/events` }),
  );
  return new Map(
    list.items.map((e) => [
      e.metadata.name,
      {
        resourceVersion: e.metadata.resourceVersion,
        reason: e.reason ?? '',
        about: e.involvedObject?.name ?? '',
      },
    ]),
  );
}
