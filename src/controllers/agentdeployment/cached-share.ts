/**
 * Which AgentDeployments the informer keeps in full under --sharding=auto, and the rule that a pass
 * never runs on a projection (projection.ts). The transform asks, each time it puts an object in the
 * cache, whether the object is kept in full: this replica owns it (the member list it sees), or a pass
 * of it runs here now (a handover waits for that pass; what it reads must not shrink under it), or
 * a takeover may soon bring it (prefetch: a member's Lease looks stale). Everything else is a
 * projection. Keys lost are projected (memory given back) once no pass of theirs runs; before a pass
 * on a key whose entry is a projection, the object is read with a GET and put in the cache in its
 * place only if the entry is still that projection (a watch event that came meanwhile is newer). A
 * takeover gains many keys at once: their namespaces are then listed in full first (readInFull), a
 * page of 500 objects per call instead of a GET per object. Without sharding every object is owned
 * and nothing is projected.
 */
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import type { Reconciler } from '../../runtime/controller.ts';
import type { RunningInformer } from '../../runtime/informer.ts';
import { objectKey, splitKey } from '../../runtime/keys.ts';
import { type CachedAgentDeployment, isProjection } from './projection.ts';

/** The cache's side the share needs: the entry of a key, and putting a read object in its place. */
export type ObjectCache = Pick<RunningInformer<CachedAgentDeployment, AgentDeployment>, 'get' | 'recache'>;

/**
 * From this many keys gained in one namespace, the namespace is listed rather than each object read: a
 * page holds 500 objects, and a takeover of 1,667 keys by GETs took 3 to 4.6 s against 1.2 to 1.7 s
 * for a listing of 5,000 (measured on the bench machine, DEVELOPMENT.md).
 */
export const LIST_FROM_KEYS = 100;

export class CachedShare {
  readonly #passing = new Set<string>();
  /** Keys read in full ahead of a takeover that may come (prefetch). */
  #prefetched = new Set<string>();
  /** The prefetch's listing under way: a takeover's reads wait for it rather than list again. */
  #prefetching: Promise<void> = Promise.resolve();
  readonly #owned: (key: string) => boolean;
  #objects: ObjectCache | undefined;
  readonly #read: (
    namespace: string,
    name: string,
    signal: AbortSignal,
  ) => Promise<AgentDeployment | undefined>;
  readonly #list: (namespace: string) => Promise<AgentDeployment[]>;

  /**
   * `owned`: whether this replica owns a key (always, without sharding). `read`: the object from the API
   * server, undefined when it is gone. `list`: every object of a namespace from the API server.
   */
  constructor(deps: {
    owned: (key: string) => boolean;
    read: (namespace: string, name: string, signal: AbortSignal) => Promise<AgentDeployment | undefined>;
    list: (namespace: string) => Promise<AgentDeployment[]>;
  }) {
    this.#owned = deps.owned;
    this.#read = deps.read;
    this.#list = deps.list;
  }

  /**
   * Keys just gained, read in full ahead of their passes where a namespace gained at least
   * LIST_FROM_KEYS of them held as projections (a replica that starts holds its share in full already): a listed object takes the place of the projection of the same
   * resourceVersion only (one that differs is older or newer than the watch's; the pass reads it).
   * What is not read here (a failed listing included) is read by its pass.
   */
  async readInFull(keys: readonly string[]): Promise<void> {
    await this.#prefetching;
    await this.#listInFull(keys);
  }

  /**
   * Keys this replica would gain if the members whose Leases look stale died (shard-membership.ts,
   * onSuspects): read in full now, as readInFull does, and kept so, so that a takeover that follows
   * finds them ready instead of listing while their objects wait. Nothing more: no pass runs on a key
   * before this replica owns it. Each call replaces the set before; keys it no longer names (the
   * suspect renewed) are projected again.
   */
  prefetch(keys: readonly string[]): Promise<void> {
    const before = this.#prefetched;
    this.#prefetched = new Set(keys);
    this.release([...before].filter((key) => !this.#prefetched.has(key)));
    const reading = this.#prefetching.then(() => this.#listInFull(keys));
    this.#prefetching = reading.catch(() => {});
    return reading;
  }

  async #listInFull(keys: readonly string[]): Promise<void> {
    const objects = this.#objects;
    if (!objects) return;
    const byNamespace = new Map<string, Set<string>>();
    for (const key of keys) {
      const { namespace, name } = splitKey(key);
      const cached = objects.get(namespace, name);
      if (!cached || !isProjection(cached)) continue;
      const set = byNamespace.get(namespace) ?? new Set<string>();
      byNamespace.set(namespace, set.add(key));
    }
    for (const [namespace, gained] of byNamespace) {
      if (gained.size < LIST_FROM_KEYS) continue;
      for (const obj of await this.#list(namespace)) {
        if (!gained.has(objectKey(obj))) continue;
        const cached = objects.get(namespace, obj.metadata.name);
        if (
          cached &&
          isProjection(cached) &&
          cached.metadata.resourceVersion === obj.metadata.resourceVersion
        ) {
          objects.recache(cached, obj);
        }
      }
    }
  }

  /** The cache, once started (its transform asks keepsInFull, so it is made after this). */
  attach(objects: ObjectCache): void {
    this.#objects = objects;
  }

  /** Whether the transform keeps this key's object in full. */
  keepsInFull(key: string): boolean {
    return this.#passing.has(key) || this.#owned(key) || this.#prefetched.has(key);
  }

  /** Keys no longer this replica's: their cached objects become projections, but not while a pass runs. */
  release(keys: Iterable<string>): void {
    const objects = this.#objects;
    if (!objects) return;
    for (const key of keys) {
      if (this.keepsInFull(key)) continue;
      const { namespace, name } = splitKey(key);
      const cached = objects.get(namespace, name);
      if (cached && !isProjection(cached)) objects.recache(cached, cached);
    }
  }

  /** `reconcile`, run only on the object in full; afterwards, projected again if the key was lost meanwhile. */
  reconciler(reconcile: Reconciler): Reconciler {
    return async (key, ctx) => {
      this.#passing.add(key);
      try {
        await this.#inFull(key, ctx.signal);
        return await reconcile(key, ctx);
      } finally {
        this.#passing.delete(key);
        this.release([key]);
      }
    };
  }

  async #inFull(key: string, signal: AbortSignal): Promise<void> {
    const objects = this.#objects;
    if (!objects) return;
    const { namespace, name } = splitKey(key);
    const cached = objects.get(namespace, name);
    if (!cached || !isProjection(cached)) return;
    const read = await this.#read(namespace, name, signal);
    // Gone: the watch's delete follows, the pass finds no object. Else it takes the projection's place,
    // unless a watch event came meanwhile: kept in full since this pass began, it is the newer.
    if (read) objects.recache(cached, read);
  }
}
