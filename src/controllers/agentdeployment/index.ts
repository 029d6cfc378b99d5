/**
 * Wiring of the AgentDeployment controller: its informers (the objects and the Secrets they reference),
 * the Secret -> object index behind the secondary watch, and the reconciler's dependencies on the
 * Kubernetes API. Informers run on every replica (warm caches); reconciles run only on the leader.
 */
import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { AgentDeployment, AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import { AGENT_DEPLOYMENT, GROUP, VERSION } from '../../api/group.ts';
import { FINALIZER } from '../../api/names.ts';
import type { ControlPlanePools } from '../../controlplane/pools.ts';
import type { Reconciler } from '../../runtime/controller.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import { type RunningInformer, shouldEnqueueUpdate, startInformer } from '../../runtime/informer.ts';
import { objectKey, splitKey } from '../../runtime/keys.ts';
import {
  addFinalizer,
  type ObjectRef,
  patchStatus,
  removeFinalizer,
  resourcePath,
} from '../../runtime/objects.ts';
import { ReadYourWrites } from '../../runtime/read-your-writes.ts';
import { statusMergePatch } from '../../runtime/status-patch.ts';
import { UnwrittenStatus } from '../../runtime/unwritten-status.ts';
import type { WorkQueue } from '../../runtime/workqueue.ts';
import { referencedSecretNames } from '../../translate/secrets.ts';
import { DeploymentObserver } from './observer.ts';
import { agentDeploymentReconciler } from './reconciler.ts';
import type { AgentDeploymentDeps } from './types.ts';

export interface AgentDeploymentControllerOptions {
  kc: KubeConfig;
  queue: WorkQueue;
  pools: ControlPlanePools;
  events: EventRecorder;
  logger: Logger;
  namespaces: string[];
  labelSelector: string;
  settings: Pick<
    AgentDeploymentDeps,
    'defaultCredentials' | 'digestKey' | 'pollIntervalMs' | 'revisionPollMs' | 'verifier'
  >;
}

export interface AgentDeploymentController {
  reconcile: Reconciler;
  /** Batched polling of the control plane; runs only while this replica leads. */
  observer: DeploymentObserver;
  objects: RunningInformer<AgentDeployment>;
  secrets: RunningInformer<V1Secret>;
  /**
   * Whose calls a key's reconcile makes, for the queue's fairness: the namespace and the credentials
   * Secret it names (or the controller's own). A hostile server or agent server slows only its tenant.
   */
  tenantOf(key: string): string | undefined;
  hasSynced(): boolean;
  stop(): Promise<void>;
}

const resource = { group: GROUP, version: VERSION, plural: AGENT_DEPLOYMENT.plural };

function refOf(obj: AgentDeployment): ObjectRef {
  return { resource, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name };
}

/** `namespace/secret` -> keys of the objects that read it; kept current by the object informer. */
export class SecretIndex {
  readonly #readers = new Map<string, Set<string>>();
  readonly #reads = new Map<string, string[]>();

  set(obj: AgentDeployment): void {
    const key = objectKey(obj);
    this.delete(key);
    const ns = obj.metadata.namespace ?? '';
    const secrets = referencedSecretNames(obj.spec).map((name) => `${ns}/${name}`);
    this.#reads.set(key, secrets);
    for (const s of secrets) {
      const readers = this.#readers.get(s) ?? new Set<string>();
      readers.add(key);
      this.#readers.set(s, readers);
    }
  }

  delete(key: string): void {
    for (const s of this.#reads.get(key) ?? []) {
      const readers = this.#readers.get(s);
      readers?.delete(key);
      // A Secret nobody reads any more is dropped, not kept with an empty set.
      if (readers?.size === 0) this.#readers.delete(s);
    }
    this.#reads.delete(key);
  }

  /** Secrets with readers, for tests. */
  get size(): number {
    return this.#readers.size;
  }

  readersOf(secretKey: string): string[] {
    return [...(this.#readers.get(secretKey) ?? [])];
  }
}

export function startAgentDeploymentController(
  options: AgentDeploymentControllerOptions,
): AgentDeploymentController {
  const { kc, queue, logger } = options;
  const index = new SecretIndex();
  // What a pass applied when its status write failed: the next pass must not send it again.
  const unwritten = new UnwrittenStatus<AgentDeployment>();
  const enqueue = (obj: AgentDeployment) => queue.add(objectKey(obj));

  const objects = startInformer<AgentDeployment>({
    kc,
    path: resourcePath(resource),
    namespaces: options.namespaces,
    labelSelector: options.labelSelector || undefined,
    logger: logger.child({ informer: 'agentdeployments' }),
    onAdd: (obj) => {
      index.set(obj);
      enqueue(obj);
    },
    onUpdate: (oldObj, newObj) => {
      index.set(newObj);
      if (shouldEnqueueUpdate(oldObj, newObj)) enqueue(newObj);
    },
    onDelete: (obj) => {
      // Everything kept per object goes with it (deleted without a finalizer pass, e.g. while following).
      index.delete(objectKey(obj));
      unwritten.forget(objectKey(obj));
      written.forget(objectKey(obj));
      observer.untrack(objectKey(obj));
      options.settings.verifier.forget(objectKey(obj));
    },
  });

  const secretChanged = (secret: V1Secret) => {
    for (const key of index.readersOf(objectKey(secret))) queue.add(key);
  };
  const secrets = startInformer<V1Secret>({
    kc,
    path: '/api/v1/secrets',
    namespaces: options.namespaces,
    logger: logger.child({ informer: 'secrets' }),
    onAdd: secretChanged,
    onUpdate: (oldSecret, newSecret) => {
      if (oldSecret.metadata?.resourceVersion !== newSecret.metadata?.resourceVersion)
        secretChanged(newSecret);
    },
    onDelete: secretChanged,
  });

  const observer = new DeploymentObserver({
    pollIntervalMs: options.settings.pollIntervalMs,
    clientFor: (credentials) => options.pools.clientFor(credentials),
    onChange: (key) => queue.add(key),
    logger: logger.child({ component: 'observer' }),
  });

  const written = new ReadYourWrites<AgentDeployment>();
  const reconcile = agentDeploymentReconciler({
    observer,
    ...options.settings,
    getObject: (namespace, name) => unwritten.overlay(written.read(objects.get(namespace, name))),
    storedObject: (obj) => unwritten.stored(obj),
    readSecret: async (namespace, name) => secrets.get(namespace, name)?.data,
    writeStatus: (obj, status, signal) =>
      unwritten.write(obj, status, async (stored) => {
        const patch = statusMergePatch(stored.status ?? {}, status as AgentDeploymentStatus);
        written.remember(stored, await patchStatus<AgentDeployment>(kc, refOf(stored), patch, signal));
      }),
    addFinalizer: async (obj, signal) => {
      written.remember(obj, await addFinalizer(kc, refOf(obj), FINALIZER, obj, signal));
    },
    removeFinalizer: async (obj, signal) => {
      await removeFinalizer(kc, refOf(obj), FINALIZER, obj, signal);
    },
    recordEvent: (obj, event) =>
      options.events.record(
        {
          apiVersion: `${resource.group}/${resource.version}`,
          kind: AGENT_DEPLOYMENT.kind,
          namespace: obj.metadata.namespace ?? '',
          name: obj.metadata.name,
          uid: obj.metadata.uid ?? '',
        },
        event.type,
        event.reason,
        event.message,
      ),
    controlPlane: (credentials, signal) => options.pools.clientFor(credentials, { signal }),
    now: () => new Date(),
  });

  return {
    reconcile,
    observer,
    objects,
    secrets,
    tenantOf: (key) => {
      const { namespace, name } = splitKey(key);
      const obj = objects.get(namespace, name);
      if (!obj) return undefined;
      return `${namespace}/${obj.spec.credentialsSecretRef?.name ?? '(default credentials)'}`;
    },
    hasSynced: () => objects.hasSynced() && secrets.hasSynced(),
    stop: async () => {
      observer.stop();
      await Promise.all([objects.stop(), secrets.stop()]);
    },
  };
}
