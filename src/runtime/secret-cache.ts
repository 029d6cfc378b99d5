/**
 * The Secrets cache. Every Secret of the watched namespaces is listed and watched as metadata only
 * (PartialObjectMetadata: name, resourceVersion, finalizers; never a value), so a cluster-wide install
 * neither downloads nor holds every Helm release blob and token in the cluster. The values of the
 * Secrets some object references are read with a GET, once per resourceVersion, and kept; a change to
 * one is read again before its readers are told, so a synchronous `peek` sees what they will read.
 * Start it after the objects are indexed, so the Secrets they reference are read before it reports
 * synced.
 *
 * The values held for one namespace are bounded (namespaceBudgetBytes): a namespace user who references
 * hundreds of large Secrets cannot take the controller's memory. A Secret that would pass its namespace's
 * budget is not held, and reading it fails with SecretBudgetError naming the budget.
 */
import type { V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { KubeAccess } from '../kube/access.ts';
import { isNotFound } from '../kube/errors.ts';
import { kubeRequest } from '../kube/request.ts';
import { dataBytes } from '../lib/data-bytes.ts';
import { DEFAULT_NAMESPACE_SECRET_BUDGET } from '../reconcile/settings.ts';
import { type NamespaceState, type RunningInformer, startInformer } from './informer.ts';
import { objectKey, splitKey } from './keys.ts';

export type SecretData = Record<string, string>;

export interface SecretCacheOptions {
  access: KubeAccess;
  namespaces: string[];
  logger: Logger;
  /** Whether some object reads this Secret (`namespace/name`): only those keep their values here. */
  isReferenced(secretKey: string): boolean;
  /** A Secret appeared, changed or went (`namespace/name`); its values, when referenced, are read first. */
  onChange(secretKey: string): void;
  /** Bytes of values held for one namespace's Secrets at most. Default DEFAULT_NAMESPACE_SECRET_BUDGET. */
  namespaceBudgetBytes?: number;
}

export { DEFAULT_NAMESPACE_SECRET_BUDGET };

/** A Secret's values would pass its namespace's budget: they are not held, and not handed out. */
export class SecretBudgetError extends Error {
  constructor(secretKey: string, bytes: number, budget: number) {
    super(
      `Secret ${secretKey} holds ${bytes} bytes of values, which would take the values the controller holds for its namespace past ${budget} bytes (--namespace-secret-budget); reference fewer or smaller Secrets`,
    );
    this.name = 'SecretBudgetError';
  }
}

/** The bytes a Secret's values take (base64 text, as held). */
export const secretDataBytes: (data: SecretData | undefined) => number = dataBytes;

export interface SecretCache {
  /** Starts the list and watch; until then nothing is synced. */
  start(): void;
  /** Listed, and the values of every Secret referenced at that moment read. */
  hasSynced(): boolean;
  /** Each watched namespace's state; before start(), every one not synced yet. */
  namespaceStates(): NamespaceState[];
  /** The cached Secret's metadata (finalizers, resourceVersion); undefined when it does not exist. */
  get(namespace: string, name: string): V1Secret | undefined;
  /** The cached Secrets of a namespace, as `get` returns them. */
  list(namespace: string): V1Secret[];
  /** The Secret's data (base64 values, as the API returns them); undefined when it does not exist. */
  read(namespace: string, name: string, signal?: AbortSignal): Promise<SecretData | undefined>;
  /** The Secret's data when this cache holds it at its current resourceVersion (no call made). */
  peek(namespace: string, name: string): SecretData | undefined;
  /** An object now reads this Secret: its values are read ahead, for `peek`. */
  reference(secretKey: string): void;
  /** No object reads this Secret any more: its values leave memory. */
  release(secretKey: string): void;
  /** How many Secrets are cached, and how many with their values (for tests and metrics). */
  size(): { secrets: number; withValues: number };
  stop(): Promise<void>;
}

const SecretBody = z.looseObject({
  metadata: z.looseObject({ resourceVersion: z.string().optional() }).optional(),
  data: z.record(z.string(), z.string()).nullish(),
});

/** Reads ahead at most this many Secrets at once (a start-up with thousands of referenced Secrets). */
const READ_AHEAD_CONCURRENCY = 8;

interface Held {
  resourceVersion: string | undefined;
  data: SecretData | undefined;
  /** secretDataBytes(data), counted against the namespace's budget while held. */
  bytes?: number;
}

export function createSecretCache(options: SecretCacheOptions): SecretCache {
  const { access, logger } = options;
  const log = logger.child({ component: 'secret-cache' });
  /** Values read, by Secret key, with the resourceVersion they were read at. */
  const held = new Map<string, Held>();
  /** Bytes held per namespace. */
  const heldBytes = new Map<string, number>();
  const budget = options.namespaceBudgetBytes ?? DEFAULT_NAMESPACE_SECRET_BUDGET;
  const namespaceOf = (key: string) => splitKey(key).namespace;
  const drop = (key: string) => {
    const before = held.get(key);
    if (!before) return;
    held.delete(key);
    const ns = namespaceOf(key);
    const left = (heldBytes.get(ns) ?? 0) - (before.bytes ?? 0);
    if (left > 0) heldBytes.set(ns, left);
    else heldBytes.delete(ns);
  };
  /** Holds the values unless that would pass the namespace's budget; false when it would. */
  const hold = (key: string, read: Held): boolean => {
    drop(key);
    const bytes = secretDataBytes(read.data);
    const ns = namespaceOf(key);
    const total = (heldBytes.get(ns) ?? 0) + bytes;
    if (total > budget) return false;
    held.set(key, { ...read, bytes });
    heldBytes.set(ns, total);
    return true;
  };
  let informer: RunningInformer<V1Secret> | undefined;
  const stopping = new AbortController();

  /** Read-ahead queue: keys waiting, and how many reads run. */
  const waiting = new Set<string>();
  let running = 0;
  /** Set once the listing is done and the reads it started have finished. */
  let settled = false;

  const versionOf = (key: string) => {
    const { namespace, name } = splitKey(key);
    return informer?.get(namespace, name)?.metadata?.resourceVersion;
  };

  async function fetchValues(namespace: string, name: string, signal?: AbortSignal): Promise<Held> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;
    try {
      const body = SecretBody.parse(await kubeRequest(access, { method: 'GET', path, signal }));
      return { resourceVersion: body.metadata?.resourceVersion, data: body.data ?? undefined };
    } catch (err) {
      if (isNotFound(err)) return { resourceVersion: undefined, data: undefined };
      throw err;
    }
  }

  /**
   * Kept only at the version the watch knows (a newer one is read again on its event), and within the
   * namespace's budget: past it, SecretBudgetError.
   */
  const keepIfCurrent = (key: string, read: Held) => {
    if (read.resourceVersion === undefined || read.resourceVersion !== versionOf(key)) return;
    if (!hold(key, read)) throw new SecretBudgetError(key, secretDataBytes(read.data), budget);
  };

  const pump = () => {
    while (running < READ_AHEAD_CONCURRENCY && waiting.size > 0 && !stopping.signal.aborted) {
      const key = waiting.values().next().value as string;
      waiting.delete(key);
      running += 1;
      const { namespace, name } = splitKey(key);
      void fetchValues(namespace, name, stopping.signal)
        .then(
          (read) => {
            try {
              keepIfCurrent(key, read);
            } catch (err) {
              // Over its namespace's budget: its readers find out when they read it.
              if (!(err instanceof SecretBudgetError)) throw err;
            }
          },
          (err: unknown) =>
            // Its readers read it themselves, and report what fails.
            log.warn(
              { secret: key, error: err instanceof Error ? err.message : String(err) },
              'read-ahead failed',
            ),
        )
        .finally(() => {
          running -= 1;
          options.onChange(key);
          pump();
          settle();
        });
    }
  };

  /** Queues a read of the Secret's values unless they are held at its version; true when queued. */
  const readAhead = (key: string): boolean => {
    const version = versionOf(key);
    if (version === undefined || held.get(key)?.resourceVersion === version) return false;
    waiting.add(key);
    pump();
    return true;
  };

  const settle = () => {
    if (!settled && informer?.hasSynced() && waiting.size === 0 && running === 0) settled = true;
  };

  const changed = (secret: V1Secret) => {
    const key = objectKey(secret);
    if (held.get(key)?.resourceVersion !== secret.metadata?.resourceVersion) drop(key);
    // A referenced Secret is read before its readers hear of the change (told when the read lands).
    if (options.isReferenced(key) && readAhead(key)) return;
    options.onChange(key);
  };

  return {
    start() {
      if (informer) return;
      informer = startInformer<V1Secret>({
        access,
        path: '/api/v1/secrets',
        namespaces: options.namespaces,
        metadataOnly: true,
        logger: logger.child({ informer: 'secrets' }),
        onAdd: changed,
        onUpdate: (before, after) => {
          if (before.metadata?.resourceVersion !== after.metadata?.resourceVersion) changed(after);
        },
        onDelete: (secret) => {
          drop(objectKey(secret));
          options.onChange(objectKey(secret));
        },
        onSettled: settle,
      });
    },
    hasSynced: () => {
      settle();
      return settled;
    },
    namespaceStates: () =>
      informer?.namespaceStates() ??
      (options.namespaces.length ? options.namespaces : ['']).map((namespace) => ({
        namespace,
        informer: '/api/v1/secrets',
        synced: false,
      })),
    get: (namespace, name) => informer?.get(namespace, name),
    list: (namespace) => informer?.list(namespace) ?? [],
    async read(namespace, name, signal) {
      const cached = informer?.get(namespace, name);
      if (!cached) return undefined;
      const key = objectKey(cached);
      const known = held.get(key);
      if (known && known.resourceVersion === cached.metadata?.resourceVersion) return known.data;
      const read = await fetchValues(namespace, name, signal);
      keepIfCurrent(key, read);
      return read.data;
    },
    peek(namespace, name) {
      const known = held.get(`${namespace}/${name}`);
      return known && known.resourceVersion === informer?.get(namespace, name)?.metadata?.resourceVersion
        ? known.data
        : undefined;
    },
    reference: (secretKey) => void readAhead(secretKey),
    release(secretKey) {
      drop(secretKey);
      waiting.delete(secretKey);
    },
    size() {
      return { secrets: informer?.list().length ?? 0, withValues: held.size };
    },
    stop: async () => {
      stopping.abort();
      waiting.clear();
      await informer?.stop();
    },
  };
}
