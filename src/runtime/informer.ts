import { isDeepStrictEqual } from 'node:util';
import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  ListWatch,
  Watch,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { z } from 'zod';
import { sleep } from './clock.ts';
import { objectKey } from './keys.ts';
import { kubeRequest } from './kubehttp.ts';

export interface InformerOptions<T extends KubernetesObject> {
  kc: KubeConfig;
  /** Cluster-wide collection path, e.g. /api/v1/secrets or /apis/deploy.agents.dev/v1alpha1/agentdeployments */
  path: string;
  /** Lists one namespace ('' = all); default: a GET on the collection path. */
  list?: (namespace: string) => Promise<KubernetesListObject<T>>;
  /** One watch per namespace; empty, undefined or [''] watches all namespaces. */
  namespaces?: string[];
  labelSelector?: string;
  onAdd?: (obj: T) => void;
  onUpdate?: (oldObj: T, newObj: T) => void;
  onDelete?: (obj: T) => void;
  /**
   * Called once, when every namespace has been listed or has failed to list (one that cannot be listed
   * must not hold up what waits for the others).
   */
  onSettled?: () => void;
  /**
   * What of an object is kept, applied to every listed and watched object before it is cached or
   * handed to a handler. Whatever it returns, managedFields and kubectl's last-applied copy are dropped
   * (never read here, and often larger than the rest of the object).
   */
  transform?: (obj: T) => T;
  logger: Logger;
  /** Restart backoff after a failed list or watch: initial, doubling to max, reset once healthy. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

/** One watched namespace ('' = all) of one informer: listed yet, and why not when it fails. */
export interface NamespaceState {
  namespace: string;
  informer: string;
  synced: boolean;
  /** The last list/watch failure while not synced (e.g. 403: not allowed to list there). */
  error?: string | undefined;
}

export interface RunningInformer<T extends KubernetesObject> {
  /** True once every namespace has been listed. */
  hasSynced(): boolean;
  /** Each namespace on its own: one that cannot be listed must not hold up the others. */
  namespaceStates(): NamespaceState[];
  /** Cached objects, in one namespace or all. */
  list(namespace?: string): T[];
  get(namespace: string, name: string): T | undefined;
  stop(): Promise<void>;
}

/** /api/v1/secrets + ns -> /api/v1/namespaces/ns/secrets */
export function namespacedPath(path: string, namespace: string): string {
  if (namespace === '') return path;
  const slash = path.lastIndexOf('/');
  return `${path.slice(0, slash)}/namespaces/${encodeURIComponent(namespace)}${path.slice(slash)}`;
}

const ListBody = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z.looseObject({ resourceVersion: z.string().optional() }).optional(),
  items: z.array(z.looseObject({ metadata: z.looseObject({}) })).nullish(),
});

/** Lists a collection path; items get the apiVersion and kind that list answers leave out. */
export async function listPath<T extends KubernetesObject>(
  kc: KubeConfig,
  path: string,
  labelSelector?: string,
): Promise<KubernetesListObject<T>> {
  const body = ListBody.parse(await kubeRequest(kc, { method: 'GET', path, query: { labelSelector } }));
  const kind = body.kind?.replace(/List$/, '');
  const items = (body.items ?? []).map(
    (item) => ({ apiVersion: body.apiVersion, kind, ...item }) as unknown as T,
  );
  return { apiVersion: body.apiVersion, kind: body.kind, metadata: body.metadata ?? {}, items };
}

type WatchArgs = Parameters<Watch['watch']>;

/**
 * client-node's ListWatch can start a watch after stop() (when stop lands during a list or a
 * reconnect delay); this Watch aborts such late connections. It also asks for bookmarks, which keep
 * the resourceVersion fresh on quiet resources so restarts relist less often.
 */
class StoppableWatch extends Watch {
  readonly #stopped: AbortSignal;
  readonly #transform: (obj: KubernetesObject) => KubernetesObject;

  constructor(kc: KubeConfig, stopped: AbortSignal, transform: (obj: KubernetesObject) => KubernetesObject) {
    super(kc);
    this.#stopped = stopped;
    this.#transform = transform;
  }

  override async watch(
    path: WatchArgs[0],
    query: WatchArgs[1],
    callback: WatchArgs[2],
    done: WatchArgs[3],
  ): Promise<AbortController> {
    if (this.#stopped.aborted) return new AbortController();
    // Bookmarks carry only a resourceVersion: nothing to slim.
    const slimmed: WatchArgs[2] = (phase, apiObj, watchObj) =>
      phase === 'BOOKMARK'
        ? callback(phase, apiObj, watchObj)
        : callback(phase, this.#transform(apiObj), watchObj);
    const controller = await super.watch(path, { ...query, allowWatchBookmarks: true }, slimmed, done);
    if (this.#stopped.aborted) controller.abort();
    return controller;
  }
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The object without what this controller never reads: managedFields and kubectl's last-applied copy. */
export function slimObject<T extends KubernetesObject>(obj: T): T {
  const metadata = obj.metadata;
  if (
    !metadata ||
    (metadata.managedFields === undefined && metadata.annotations?.[LAST_APPLIED] === undefined)
  ) {
    return obj;
  }
  const { managedFields: _managed, ...rest } = metadata;
  if (rest.annotations?.[LAST_APPLIED] !== undefined) {
    const { [LAST_APPLIED]: _lastApplied, ...annotations } = rest.annotations;
    rest.annotations = annotations;
  }
  return { ...obj, metadata: rest };
}

/** Never settles: parks a ListWatch step that must not continue after stop (garbage-collected). */
const never = new Promise<never>(() => {});

/**
 * Starts list+watch informers (one per namespace) over client-node's ListWatch, owning what it does
 * not: restart with backoff after errors (ListWatch gives up on any error other than 410 and
 * timeouts; it relists by itself on 410 Gone), old objects for updates, and one shared cache.
 */
export function startInformer<T extends KubernetesObject>(options: InformerOptions<T>): RunningInformer<T> {
  const { kc, path, labelSelector, logger } = options;
  const initialBackoffMs = options.initialBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const list =
    options.list ?? ((namespace: string) => listPath<T>(kc, namespacedPath(path, namespace), labelSelector));
  const namespaces = options.namespaces?.length ? [...new Set(options.namespaces)] : [''];
  if (namespaces.includes('') && namespaces.length > 1) {
    throw new Error('informer: namespaces must be all-namespaces ("") or a list of namespaces, not both');
  }
  const cache = new Map<string, T>();
  const stopping = new AbortController();
  // Slimmed first: a transform may remember the very object it returns (secret-cache.ts does).
  const keep = (obj: T): T => (options.transform ? options.transform(slimObject(obj)) : slimObject(obj));
  let reportedSynced = false;
  const reportSynced = () => {
    if (reportedSynced || !watchers.every((w) => w.synced() || w.state().error !== undefined)) return;
    reportedSynced = true;
    options.onSettled?.();
  };

  function watchNamespace(namespace: string): {
    synced(): boolean;
    state(): NamespaceState;
    stop(): Promise<void>;
  } {
    const log = logger.child({ informer: path, namespace: namespace || '*' });
    let listed = false;
    let synced = false;
    let errored = false;
    let lastError: string | undefined;
    let backoffMs = initialBackoffMs;
    let restartTimer: ReturnType<typeof setTimeout> | undefined;

    const listOnce = async (): Promise<KubernetesListObject<T>> => {
      const result = await list(namespace);
      if (stopping.signal.aborted) return never;
      listed = true;
      return { ...result, items: result.items.map(keep) };
    };
    const delay = async (ms: number): Promise<void> => {
      await sleep(ms, stopping.signal);
      if (stopping.signal.aborted) return never;
    };
    const informer = new ListWatch<T>(
      namespacedPath(path, namespace),
      new StoppableWatch(kc, stopping.signal, (obj) => keep(obj as T)),
      listOnce,
      false,
      labelSelector,
      undefined,
      { delayFn: delay },
    );

    // A throwing handler would end ListWatch's watch (or reject unhandled): contain it here.
    const notify = (what: string, handler: () => void) => {
      try {
        handler();
      } catch (err) {
        log.error({ error: describe(err) }, `${what} handler failed`);
      }
    };
    informer.on('add', (obj) => {
      cache.set(objectKey(obj), obj);
      notify('add', () => options.onAdd?.(obj));
    });
    informer.on('update', (obj) => {
      const key = objectKey(obj);
      const old = cache.get(key) ?? obj;
      cache.set(key, obj);
      notify('update', () => options.onUpdate?.(old, obj));
    });
    informer.on('delete', (obj) => {
      cache.delete(objectKey(obj));
      notify('delete', () => options.onDelete?.(obj));
    });
    informer.on('error', (err) => {
      if (stopping.signal.aborted) return;
      errored = true;
      if (!synced) lastError = describe(err);
      reportSynced();
      log.warn({ error: describe(err), retryInMs: backoffMs }, 'list/watch failed; restarting');
      scheduleRestart();
    });

    function scheduleRestart(): void {
      if (restartTimer !== undefined) return;
      const wait = backoffMs;
      backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        void run();
      }, wait);
    }

    async function run(): Promise<void> {
      if (stopping.signal.aborted) return;
      errored = false;
      try {
        await informer.start();
      } catch (err) {
        // Only a failure before any request (e.g. credentials) gets here; ListWatch reports the rest.
        errored = true;
        if (!synced) lastError = describe(err);
        reportSynced();
        log.warn({ error: describe(err), retryInMs: backoffMs }, 'informer start failed; restarting');
        scheduleRestart();
      }
      // start() resolves once listed (when needed) and watching, or after reporting an error.
      if (errored || stopping.signal.aborted) return;
      backoffMs = initialBackoffMs;
      if (listed && !synced) {
        synced = true;
        lastError = undefined;
        log.debug({ objects: informer.list().length }, 'informer synced');
        reportSynced();
      }
    }

    void run();
    return {
      synced: () => synced,
      state: () => ({ namespace, informer: path, synced, error: lastError }),
      async stop() {
        clearTimeout(restartTimer);
        await informer.stop();
      },
    };
  }

  const watchers = namespaces.map(watchNamespace);

  return {
    hasSynced: () => watchers.every((w) => w.synced()),
    namespaceStates: () => watchers.map((w) => w.state()),
    list(namespace?: string): T[] {
      const all = [...cache.values()];
      return namespace === undefined ? all : all.filter((o) => (o.metadata?.namespace ?? '') === namespace);
    },
    get(namespace: string, name: string): T | undefined {
      return cache.get(objectKey({ metadata: { namespace, name } }));
    },
    async stop(): Promise<void> {
      stopping.abort();
      await Promise.all(watchers.map((w) => w.stop()));
    },
  };
}

/** Error text for logs: message and HTTP status only (errors may carry request options). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const status =
    (err as { statusCode?: unknown; status?: unknown }).statusCode ?? (err as { status?: unknown }).status;
  return status === undefined ? err.message : `${err.message} (HTTP ${String(status)})`;
}

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
