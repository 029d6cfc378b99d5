import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeAccess } from '../kube/access.ts';
import {
  SHORT_WATCH_MS,
  WatchError,
  type WatchEvent,
  watchStream,
  watchTimeoutSeconds,
} from '../kube/watch.ts';
import { sleep } from './clock.ts';
import { objectKey } from './keys.ts';
import { listPath } from './list-pages.ts';
import { isOlderVersion } from './resource-version.ts';
import { WatchBackoff } from './watch-backoff.ts';

/** `C`: what the cache holds of a `T` (the transform's result; the object itself by default). */
export interface InformerOptions<T extends KubernetesObject, C extends KubernetesObject = T> {
  access: KubeAccess;
  /** Cluster-wide collection path, e.g. /api/v1/secrets or /apis/deploy.agents.dev/v1alpha1/agentdeployments */
  path: string;
  /** Lists one namespace ('' = all); default: the collection path, a page at a time. */
  list?: (namespace: string) => Promise<KubernetesListObject<T>>;
  /** One watch per namespace; empty, undefined or [''] watches all namespaces. */
  namespaces?: string[];
  labelSelector?: string;
  /**
   * Lists and watches PartialObjectMetadata: every object's metadata and nothing else (the values of
   * Secrets never reach the process).
   */
  metadataOnly?: boolean;
  onAdd?: (obj: C) => void;
  onUpdate?: (oldObj: C, newObj: C) => void;
  onDelete?: (obj: C) => void;
  /**
   * Called once, when every namespace has been listed or has failed to list (one that cannot be listed
   * must not hold up what waits for the others).
   */
  onSettled?: () => void;
  /**
   * What of an object is kept, applied to every listed and watched object before it is cached or
   * handed to a handler. Whatever it returns, managedFields and kubectl's last-applied copy are dropped
   * (never read here, and often larger than the rest of the object). It may keep less than the object
   * (a projection, `C`), deciding per object each time one is put in the cache (see `recache`).
   */
  transform?: (obj: T) => C;
  logger: Logger;
  /**
   * The wait before listing or watching again after a failure (watch-backoff.ts): client-go's 800 ms,
   * doubling to 30 s, with jitter. Tests shorten them.
   */
  initialBackoffMs?: number | undefined;
  maxBackoffMs?: number | undefined;
}

/** One watched namespace ('' = all) of one informer: listed yet, and why not when it fails. */
export interface NamespaceState {
  namespace: string;
  informer: string;
  synced: boolean;
  /** The last list/watch failure while not synced (e.g. 403: not allowed to list there). */
  error?: string | undefined;
}

export interface RunningInformer<T extends KubernetesObject, R extends KubernetesObject = T> {
  /** True once every namespace has been listed. */
  hasSynced(): boolean;
  /** Each namespace on its own: one that cannot be listed must not hold up the others. */
  namespaceStates(): NamespaceState[];
  /** Cached objects, in one namespace or all. */
  list(namespace?: string): T[];
  get(namespace: string, name: string): T | undefined;
  /**
   * Puts `obj` (read by the caller, or the cached entry itself when that is an `R`) through the transform in place of
   * `expected`, told to the handlers as an update, only while the cache still holds `expected` for its
   * key (the very entry: any watch event since is newer) and `obj` is not older than it. False when
   * it is not put. A watch event older than what is cached is dropped, so a read put here is never
   * replaced by a version before it. With the transform deciding what is kept per object, this is how
   * a cached entry changes form between events.
   */
  recache(expected: T, obj: R): boolean;
  /**
   * How many times the cache changed (an object put or removed): what is counted from the cache while
   * this stays the same needs no counting again (lib/memo-by-changes.ts).
   */
  changes(): number;
  stop(): Promise<void>;
}

/** /api/v1/secrets + ns -> /api/v1/namespaces/ns/secrets */
export function namespacedPath(path: string, namespace: string): string {
  if (namespace === '') return path;
  const slash = path.lastIndexOf('/');
  return `${path.slice(0, slash)}/namespaces/${encodeURIComponent(namespace)}${path.slice(slash)}`;
}

const METADATA_WATCH = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

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

/** The watch's resourceVersion is older than the server keeps: relist. */
class Expired extends Error {}

/**
 * Starts list+watch informers (one per namespace) sharing one cache. A namespace is listed (a page at a
 * time), then watched from the list's resourceVersion; when the server ends a watch it is resumed from
 * the last version seen (bookmarks keep that fresh on quiet resources), a failure is retried with
 * backoff from the same version, and only an expired version (410 Gone) costs a relist, whose
 * differences from the cache reach the handlers as adds, updates and deletes.
 *
 * Every retry that follows a fault waits its namespace's backoff (client-go's reflector: 800 ms doubling
 * to 30 s, jittered): a failed list or watch, a watch that ended within a second of opening (an API
 * server or proxy that answers 200 and closes), and the relist after a 410. Only a watch that ran its
 * course is resumed at once.
 */
export function startInformer<T extends KubernetesObject, C extends KubernetesObject = T>(
  options: InformerOptions<T, C>,
): RunningInformer<C, T> {
  const { access, path, labelSelector, logger } = options;
  const stopping = new AbortController();
  const list =
    options.list ??
    ((namespace: string) =>
      listPath<T>(access, namespacedPath(path, namespace), {
        labelSelector,
        metadataOnly: options.metadataOnly,
        signal: stopping.signal,
      }));
  const namespaces = options.namespaces?.length ? [...new Set(options.namespaces)] : [''];
  if (namespaces.includes('') && namespaces.length > 1) {
    throw new Error('informer: namespaces must be all-namespaces ("") or a list of namespaces, not both');
  }
  /** namespace -> name -> object */
  const cache = new Map<string, Map<string, C>>();
  const cached = (namespace: string, name: string) => cache.get(namespace)?.get(name);
  // Slimmed first: a transform may remember the very object it returns (secret-cache.ts does). Without
  // a transform, C is T.
  const keep = (obj: T): C =>
    options.transform ? options.transform(slimObject(obj)) : (slimObject(obj) as unknown as C);
  let reportedSynced = false;
  const reportSynced = () => {
    if (reportedSynced || !watchers.every((w) => w.synced() || w.state().error !== undefined)) return;
    reportedSynced = true;
    options.onSettled?.();
  };
  let changes = 0;
  const put = (obj: C) => {
    changes += 1;
    const ns = obj.metadata?.namespace ?? '';
    const names = cache.get(ns);
    if (names) names.set(obj.metadata?.name ?? '', obj);
    else cache.set(ns, new Map([[obj.metadata?.name ?? '', obj]]));
  };
  const remove = (obj: C) => {
    changes += 1;
    const ns = obj.metadata?.namespace ?? '';
    const names = cache.get(ns);
    names?.delete(obj.metadata?.name ?? '');
    if (names?.size === 0) cache.delete(ns);
  };
  const all = (): C[] => [...cache.values()].flatMap((names) => [...names.values()]);
  /** Whether the cache holds a later version of this object than `obj` (resource-version.ts). */
  const behindCache = (obj: KubernetesObject): boolean => {
    const held = cached(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
    return !!held && isOlderVersion(obj.metadata?.resourceVersion, held.metadata?.resourceVersion);
  };

  function watchNamespace(namespace: string): {
    synced(): boolean;
    state(): NamespaceState;
    done: Promise<void>;
  } {
    const log = logger.child({ informer: path, namespace: namespace || '*' });
    const watchPath = namespacedPath(path, namespace);
    let synced = false;
    let lastError: string | undefined;
    const backoff = new WatchBackoff({ initialMs: options.initialBackoffMs, maxMs: options.maxBackoffMs });
    /** The version the cache is at; undefined: a list is needed. */
    let resourceVersion: string | undefined;

    // A throwing handler must not end the watch: contain it here.
    const notify = (what: string, handler: () => void) => {
      try {
        handler();
      } catch (err) {
        log.error({ error: describe(err) }, `${what} handler failed`);
      }
    };
    const added = (obj: C) => notify('add', () => options.onAdd?.(obj));
    const updated = (old: C, obj: C) => notify('update', () => options.onUpdate?.(old, obj));
    const deleted = (obj: C) => notify('delete', () => options.onDelete?.(obj));

    /** A relist: what changed since the cache was filled reaches the handlers. */
    const replace = (items: C[]) => {
      const listed = new Set<string>();
      for (const obj of items) {
        listed.add(objectKey(obj));
        const old = cached(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
        if (old && isOlderVersion(obj.metadata?.resourceVersion, old.metadata?.resourceVersion)) continue;
        put(obj);
        if (!old) added(obj);
        else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) updated(old, obj);
      }
      const scope = namespace === '' ? all() : [...(cache.get(namespace)?.values() ?? [])];
      for (const obj of scope) {
        if (listed.has(objectKey(obj))) continue;
        remove(obj);
        deleted(obj);
      }
    };

    const onEvent = (event: WatchEvent) => {
      const object = event.object as unknown as T;
      const version = object.metadata?.resourceVersion;
      switch (event.type) {
        case 'BOOKMARK':
          break;
        case 'ERROR': {
          const status = event.object as { code?: number; message?: string };
          if (status.code === 410) throw new Expired(status.message ?? 'resourceVersion too old');
          throw new WatchError(status.message ?? 'the watch reported an error', status.code);
        }
        case 'ADDED':
        case 'MODIFIED': {
          // Older than what a read outside the watch put in the cache (recache): the cache never goes back.
          if (behindCache(object)) break;
          const obj = keep(object);
          const old = cached(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
          put(obj);
          if (old) updated(old, obj);
          else added(obj);
          break;
        }
        case 'DELETED': {
          // The deletion of an object older than the one cached (deleted, then made again and read).
          if (behindCache(object)) break;
          const obj = keep(object);
          remove(obj);
          deleted(obj);
          break;
        }
        default:
          throw new WatchError(`the watch sent an event of unknown type ${String(event.type)}`);
      }
      if (version) resourceVersion = version;
    };

    /**
     * Lists into the cache and returns the list's resourceVersion. A function of its own so that the
     * listed objects (as the server sent them, managedFields included) are garbage once it returns,
     * not held by the loop's frame for as long as the watch that follows runs.
     */
    async function relist(): Promise<string | undefined> {
      const listed = await list(namespace);
      if (stopping.signal.aborted) return undefined;
      replace(listed.items.map(keep));
      if (!synced) {
        synced = true;
        lastError = undefined;
        log.debug({ objects: listed.items.length }, 'informer synced');
        reportSynced();
      }
      return listed.metadata?.resourceVersion ?? '';
    }

    /** Waits this namespace's backoff (at once when the informer stops). */
    const backOff = async (level: 'debug' | 'warn', message: string, fields: Record<string, unknown>) => {
      const retryInMs = backoff.next();
      log[level]({ ...fields, retryInMs }, message);
      await sleep(retryInMs, stopping.signal);
    };

    async function run(): Promise<void> {
      while (!stopping.signal.aborted) {
        try {
          resourceVersion ??= await relist();
          if (resourceVersion === undefined) return;
          const openedAt = performance.now();
          await watchStream(
            access,
            {
              path: watchPath,
              resourceVersion,
              labelSelector,
              timeoutSeconds: watchTimeoutSeconds(),
              ...(options.metadataOnly ? { accept: METADATA_WATCH } : {}),
              signal: stopping.signal,
            },
            onEvent,
          );
          if (stopping.signal.aborted) return;
          // The server ended the watch: its timeout (resume from the last version seen at once), or a
          // fault when that came within a second.
          if (performance.now() - openedAt < SHORT_WATCH_MS) {
            await backOff('warn', 'the watch ended within a second of opening; resuming after a backoff', {});
          }
        } catch (err) {
          if (stopping.signal.aborted) return;
          if (err instanceof Expired || (err instanceof WatchError && err.status === 410)) {
            // client-go relists after the same backoff: an API server that expires every watch at once
            // must not be listed in a loop.
            resourceVersion = undefined;
            await backOff('debug', 'watch expired; relisting after a backoff', { error: describe(err) });
            continue;
          }
          if (!synced) lastError = describe(err);
          reportSynced();
          await backOff('warn', 'list/watch failed; restarting', { error: describe(err) });
        }
      }
    }

    const done = run();
    return {
      synced: () => synced,
      state: () => ({ namespace, informer: path, synced, error: lastError }),
      done,
    };
  }

  const watchers = namespaces.map(watchNamespace);

  return {
    hasSynced: () => watchers.every((w) => w.synced()),
    namespaceStates: () => watchers.map((w) => w.state()),
    list(namespace?: string): C[] {
      if (namespace === undefined) return all();
      return [...(cache.get(namespace)?.values() ?? [])];
    },
    get: cached,
    changes: () => changes,
    recache(expected: C, obj: T): boolean {
      const key = { namespace: expected.metadata?.namespace ?? '', name: expected.metadata?.name ?? '' };
      if (cached(key.namespace, key.name) !== expected) return false;
      if (isOlderVersion(obj.metadata?.resourceVersion, expected.metadata?.resourceVersion)) return false;
      const next = keep(obj);
      put(next);
      try {
        options.onUpdate?.(expected, next);
      } catch (err) {
        logger.error({ informer: path, error: describe(err) }, 'update handler failed');
      }
      return true;
    },
    async stop(): Promise<void> {
      stopping.abort();
      await Promise.all(watchers.map((w) => w.done));
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
