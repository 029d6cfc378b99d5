/**
 * How the informer keeps each AgentDeployment under --sharding=auto, and the rule that a pass never
 * runs on a projection (projection.ts). The transform asks, each time it puts an object in the cache,
 * which form it takes (formOf): in full where the key is assigned to this replica (the member list it
 * sees), where it stands by for the key (it takes the key over should its assignee go: a failover
 * reads nothing) or where a pass of it runs here now (a handover waits for that pass; what it reads
 * must not shrink under it); a projection otherwise. What needs no read is brought to its form at once
 * (conform): keys neither assigned nor stood by for projected (memory given back) once no pass of
 * theirs runs. Before a pass on a key whose entry is still a projection, the object is read with a GET and
 * put in the cache in its place only if the entry is still that projection (a watch event that came
 * meanwhile is newer). A takeover of keys held as projections (this replica began standing by for
 * them after their last change) reads their namespaces in full first (readInFull), a page of 500
 * objects per call instead of a GET per object. Without sharding every object is assigned and nothing
 * is projected.
 */
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import { AbortScope } from '../../../lib/abort-scope.ts';
import type { Reconciler } from '../../../runtime/controller.ts';
import type { RunningInformer } from '../../../runtime/informer.ts';
import { objectKey, splitKey } from '../../../runtime/keys.ts';
import { type CachedAgentDeployment, type CachedForm, isProjection } from './projection.ts';

/** The cache's side the share needs: the entry of a key, and putting a read object in its place. */
export type ObjectCache = Pick<RunningInformer<CachedAgentDeployment, AgentDeployment>, 'get' | 'recache'>;

/**
 * From this many keys gained in one namespace, the namespace is listed rather than each object read: a
 * page holds 500 objects, and listing a namespace of 5,000 is faster than a GET of each of the third
 * of them that a takeover over 3 replicas gains.
 */
export const LIST_FROM_KEYS = 100;
/** One GET of an object it stands by for (in the background: no pass waits for it). */
const READ_TIMEOUT_MS = 30_000;

export class CachedShare {
  readonly #passing = new Set<string>();
  /** Changes of #passing, what formOf reads beside the members. */
  #changes = 0;
  #listingStandby: Promise<void> = Promise.resolve();
  readonly #assigned: (key: string) => boolean;
  readonly #standsBy: (key: string) => boolean;
  #objects: ObjectCache | undefined;
  readonly #read: (
    namespace: string,
    name: string,
    signal: AbortSignal,
  ) => Promise<AgentDeployment | undefined>;
  readonly #list: (namespace: string) => AsyncIterable<readonly AgentDeployment[]>;

  /**
   * `assigned`: whether a key is assigned to this replica (always, without sharding). `standsBy`: whether it
   * takes the key over should its assignee go (never, without sharding). `read`: the object from the API
   * server, undefined when it is gone. `list`: every object of a namespace from the API server, a page at a
   * time (only the wanted ones are kept).
   */
  constructor(deps: {
    assigned: (key: string) => boolean;
    standsBy?: (key: string) => boolean;
    read: (namespace: string, name: string, signal: AbortSignal) => Promise<AgentDeployment | undefined>;
    list: (namespace: string) => AsyncIterable<readonly AgentDeployment[]>;
  }) {
    this.#assigned = deps.assigned;
    this.#standsBy = deps.standsBy ?? (() => false);
    this.#read = deps.read;
    this.#list = deps.list;
  }

  /**
   * Keys a takeover gained, in full ahead of their passes: read where a namespace holds at least
   * LIST_FROM_KEYS of them as projections; fewer are read by their passes.
   */
  async readInFull(keys: readonly string[]): Promise<void> {
    // Yielded first: the caller sends its listing before any read.
    await Promise.resolve();
    // Only projections need a read. A takeover while the standby's namespaces are listed waits for
    // that listing (what it lists, this need not list again), but not when nothing needs it: a
    // failover right after a change of members, everything it gained being in full, goes on at once
    // rather than wait for a listing of the whole namespace.
    if (!keys.some((key) => this.awaitsRead(key))) return;
    await this.#listingStandby;
    await this.#readProjections(keys, 'list', undefined);
  }

  /**
   * Of `keys` (every key cached), once the members changed: each brought to its form where that needs
   * no read (conform); those it began standing by for after their last watch event read in full (no
   * pass will read them), by a listing of their namespace or, fewer than LIST_FROM_KEYS,
   * one GET each. A takeover waits for the listings only: the GETs, one at a
   * time, could be many (many small namespaces). `signal` stops the GETs (the replica leaves).
   * Resolves with how many objects were put in the cache in full.
   */
  async readStandby(keys: readonly string[], signal: AbortSignal): Promise<number> {
    this.conform(keys);
    const listing = this.#listingStandby.then(() => this.#readProjections(keys, 'list', signal));
    this.#listingStandby = listing.then(
      () => {},
      () => {},
    );
    const listed = await listing;
    return listed + (await this.#readProjections(keys, 'get', signal));
  }

  /**
   * Of `keys`, those to be kept in full but held as projections, read in full: by `list`,
   * those of the namespaces holding at least LIST_FROM_KEYS of them; by `get`, those of the others,
   * one GET each.
   * A listed (or read) object takes the place of the projection of the same resourceVersion only
   * (one that differs is older or newer than the watch's; a pass reads it). What is not read here (a
   * failed listing included) is read by its pass. Resolves with how many took a projection's place.
   */
  async #readProjections(
    keys: Iterable<string>,
    by: 'list' | 'get',
    signal: AbortSignal | undefined,
  ): Promise<number> {
    const objects = this.#objects;
    if (!objects) return 0;
    let put = 0;
    const byNamespace = new Map<string, Set<string>>();
    for (const key of keys) {
      if (!this.awaitsRead(key)) continue;
      const { namespace } = splitKey(key);
      const set = byNamespace.get(namespace) ?? new Set<string>();
      byNamespace.set(namespace, set.add(key));
    }
    const putInFull = (obj: AgentDeployment) => {
      const cached = objects.get(obj.metadata.namespace ?? '', obj.metadata.name);
      if (
        cached &&
        isProjection(cached) &&
        cached.metadata.resourceVersion === obj.metadata.resourceVersion
      ) {
        objects.recache(cached, obj);
        put += 1;
      }
    };
    for (const [namespace, wanted] of byNamespace) {
      if (by === 'list' && wanted.size >= LIST_FROM_KEYS) {
        for await (const page of this.#list(namespace))
          for (const obj of page) if (wanted.has(objectKey(obj))) putInFull(obj);
      } else if (by === 'get' && wanted.size < LIST_FROM_KEYS) {
        for (const key of wanted) {
          if (signal?.aborted) return put;
          // Ended once the GET answered: up to 99 GETs in a row would each leave a timer alive for 30 s.
          const scope = new AbortScope([signal], READ_TIMEOUT_MS);
          try {
            const read = await this.#read(namespace, splitKey(key).name, scope.signal);
            if (read) putInFull(read);
          } finally {
            scope.end();
          }
        }
      }
    }
    return put;
  }

  /** Whether the key is to be kept in full but is held as a projection: it needs a read. */
  awaitsRead(key: string): boolean {
    const { namespace, name } = splitKey(key);
    const cached = this.#objects?.get(namespace, name);
    return cached !== undefined && isProjection(cached) && this.formOf(key) === 'full';
  }

  /**
   * How many times what formOf answers by changed, beside the members' view (the keys whose pass
   * runs): with the cache's changes and the view, what awaitsRead counts is the same.
   */
  changes(): number {
    return this.#changes;
  }

  /** The cache, once started (its transform asks formOf, so it is made after this). */
  attach(objects: ObjectCache): void {
    this.#objects = objects;
  }

  /** How the transform keeps this key's object. */
  formOf(key: string): CachedForm {
    return this.#passing.has(key) || this.#assigned(key) || this.#standsBy(key) ? 'full' : 'projection';
  }

  /**
   * Each key's cached entry brought to the form formOf says now, where that needs no read: an object
   * in full projected (neither assigned nor stood by for, and no pass of it runs). A projection to be
   * kept in full needs a read (readInFull, readStandby, a pass).
   */
  conform(keys: Iterable<string>): void {
    const objects = this.#objects;
    if (!objects) return;
    for (const key of keys) {
      const { namespace, name } = splitKey(key);
      const cached = objects.get(namespace, name);
      if (cached && !isProjection(cached) && this.formOf(key) === 'projection')
        objects.recache(cached, cached);
    }
  }

  /** `reconcile`, run only on the object in full; afterwards, projected again if the key was lost meanwhile. */
  reconciler(reconcile: Reconciler): Reconciler {
    return async (key, ctx) => {
      this.#passing.add(key);
      this.#changes += 1;
      try {
        await this.#inFull(key, ctx.signal);
        return await reconcile(key, ctx);
      } finally {
        this.#passing.delete(key);
        this.#changes += 1;
        this.conform([key]);
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
