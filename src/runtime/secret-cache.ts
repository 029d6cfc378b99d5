/**
 * The Secrets cache, holding values only for the Secrets some object reads. Every Secret of the watched
 * namespaces is watched (a change must reach its readers), but one that no object references when it
 * arrives is kept as metadata only: a cluster-wide install no longer holds every Helm release blob and
 * token in memory. Reading such a Secret (a reference made later, or a kind that does not register its
 * references) fetches it once per resourceVersion. Start it after the objects are indexed, so the
 * first listing keeps the values of every Secret already referenced.
 */
import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { z } from 'zod';
import { isNotFound } from './errors.ts';
import { type NamespaceState, type RunningInformer, startInformer } from './informer.ts';
import { objectKey } from './keys.ts';
import { kubeRequest } from './kubehttp.ts';

export type SecretData = Record<string, string>;

export interface SecretCacheOptions {
  kc: KubeConfig;
  namespaces: string[];
  logger: Logger;
  /** Whether some object reads this Secret (`namespace/name`): only those keep their values here. */
  isReferenced(secretKey: string): boolean;
  /** A Secret appeared, changed or went (`namespace/name`). */
  onChange(secretKey: string): void;
}

export interface SecretCache {
  /** Starts the list and watch; until then nothing is synced. */
  start(): void;
  hasSynced(): boolean;
  /** Each watched namespace's state; before start(), every one not synced yet. */
  namespaceStates(): NamespaceState[];
  /** The cached Secret (metadata, finalizers; its values only when held); undefined when it does not exist. */
  get(namespace: string, name: string): V1Secret | undefined;
  /** The cached Secrets of a namespace, as `get` returns them. */
  list(namespace: string): V1Secret[];
  /** The Secret's data (base64 values, as the API returns them); undefined when it does not exist. */
  read(namespace: string, name: string, signal?: AbortSignal): Promise<SecretData | undefined>;
  /**
   * The Secret's data when this cache holds it (no call made): the values of a referenced Secret, or of
   * one already read at its current resourceVersion; undefined otherwise.
   */
  peek(namespace: string, name: string): SecretData | undefined;
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

export function createSecretCache(options: SecretCacheOptions): SecretCache {
  const { kc, logger } = options;
  /** Cached objects whose values were left out: reading them goes to the API. */
  const withoutValues = new WeakSet<V1Secret>();
  /** Values fetched on demand, by Secret key, for the resourceVersion they were read at. */
  const fetched = new Map<string, { resourceVersion: string | undefined; data: SecretData | undefined }>();
  let informer: RunningInformer<V1Secret> | undefined;

  const metadataOnly = (secret: V1Secret): V1Secret => {
    const slim: V1Secret = { apiVersion: secret.apiVersion, kind: secret.kind, metadata: secret.metadata };
    if (secret.type !== undefined) slim.type = secret.type;
    withoutValues.add(slim);
    return slim;
  };
  const keep = (secret: V1Secret): V1Secret =>
    options.isReferenced(objectKey(secret))
      ? {
          apiVersion: secret.apiVersion,
          kind: secret.kind,
          metadata: secret.metadata,
          type: secret.type,
          data: secret.data,
        }
      : metadataOnly(secret);

  const changed = (secret: V1Secret) => {
    const key = objectKey(secret);
    fetched.delete(key);
    options.onChange(key);
  };

  async function fetchValues(namespace: string, name: string, signal?: AbortSignal) {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;
    try {
      const body = SecretBody.parse(await kubeRequest(kc, { method: 'GET', path, signal }));
      return { resourceVersion: body.metadata?.resourceVersion, data: body.data ?? undefined };
    } catch (err) {
      if (isNotFound(err)) return { resourceVersion: undefined, data: undefined };
      throw err;
    }
  }

  return {
    start() {
      if (informer) return;
      informer = startInformer<V1Secret>({
        kc,
        path: '/api/v1/secrets',
        namespaces: options.namespaces,
        logger: logger.child({ informer: 'secrets' }),
        transform: keep,
        onAdd: changed,
        onUpdate: (before, after) => {
          if (before.metadata?.resourceVersion !== after.metadata?.resourceVersion) changed(after);
        },
        onDelete: changed,
      });
    },
    hasSynced: () => informer?.hasSynced() ?? false,
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
      if (!withoutValues.has(cached)) return cached.data;
      const key = objectKey(cached);
      const resourceVersion = cached.metadata?.resourceVersion;
      const known = fetched.get(key);
      if (known && known.resourceVersion === resourceVersion) return known.data;
      const read = await fetchValues(namespace, name, signal);
      // Kept only when it is the version the watch knows: a newer one is fetched again on its event.
      if (read.resourceVersion === resourceVersion) fetched.set(key, read);
      return read.data;
    },
    peek(namespace, name) {
      const cached = informer?.get(namespace, name);
      if (!cached) return undefined;
      if (!withoutValues.has(cached)) return cached.data;
      const known = fetched.get(objectKey(cached));
      return known?.resourceVersion === cached.metadata?.resourceVersion ? known?.data : undefined;
    },
    release(secretKey) {
      fetched.delete(secretKey);
      const [namespace = '', name = ''] = secretKey.split('/');
      const cached = informer?.get(namespace, name);
      if (cached && !withoutValues.has(cached) && cached.data !== undefined) {
        // The cached object is shared with the informer's own store: drop the values in place.
        delete cached.data;
        withoutValues.add(cached);
      }
    },
    size() {
      const all = informer?.list() ?? [];
      return {
        secrets: all.length,
        withValues: all.filter((s) => !withoutValues.has(s)).length + fetched.size,
      };
    },
    stop: async () => {
      await informer?.stop();
    },
  };
}
