/**
 * The claims of every watched AgentDeployment, kept current by the object informer and indexed by
 * deployment name and id, so the ownership gate reads the few that matter without scanning the cache.
 * A claim's tenant is computed when asked: the digest recorded with its id, else the tenant its current
 * credentials reach (resolved from the Secret cache; unknown while they do not resolve).
 *
 * Which claims a query sees is claims.ts's rule (visibleClaim); the controller indexes the informer
 * cache with it, the plan the objects it lists, so both see the same claims.
 *
 * The index holds keys, not objects: it reads each object where it is kept (the informer's cache), so a
 * replica holding 10,000 objects does not keep a second Map of them (448 KiB).
 */
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import { Annotation } from '../../api/names.ts';
import { joinKey } from '../../runtime/keys.ts';
import {
  type Claim,
  type ClaimSource,
  type CredentialIdentity,
  deploymentNameOf,
  visibleClaim,
} from './claims.ts';

const objectKey = (obj: ClaimSource) => joinKey(obj.metadata.namespace ?? '', obj.metadata.name ?? '');

/** Claims in one tenant, as seen by an object of credential identity `identity`. */
export interface ClaimQuery {
  tenant: string;
  identity: string;
  /** The credentials carry a tenant id: recorded ids count for the whole tenant, else for the identity. */
  tenanted: boolean;
  name?: string;
  ids?: readonly string[];
}

/** Where the index reads the objects it indexed, by key: the informer's cache, or a listing. */
export interface IndexedObjects<T> {
  get(key: string): T | undefined;
}

/** `T`: the objects indexed (AgentDeployments, or what a replica caches of them: projection.ts). */
export class ClaimIndex<T extends ClaimSource = AgentDeployment> {
  readonly #objects: IndexedObjects<T>;
  readonly #byName = new KeysBy();
  readonly #byId = new KeysBy();
  readonly #identityOf: (obj: T) => CredentialIdentity | undefined;

  /** `objects` holds each object as last set here (the caller keeps it so). */
  constructor(identityOf: (obj: T) => CredentialIdentity | undefined, objects: IndexedObjects<T>) {
    this.#identityOf = identityOf;
    this.#objects = objects;
  }

  /** Indexes each of `objects` (a listing), keyed as the index keys them. */
  static of<T extends ClaimSource>(
    objects: readonly T[],
    identityOf: (obj: T) => CredentialIdentity | undefined,
  ): ClaimIndex<T> {
    const byKey = new Map<string, T>();
    const index = new ClaimIndex(identityOf, byKey);
    for (const obj of objects) {
      const key = objectKey(obj);
      index.set(obj, byKey.get(key));
      byKey.set(key, obj);
    }
    return index;
  }

  /**
   * Indexes `obj`; `previous`: the version indexed before it (an update), none when it is new here. An
   * update changes only what differs: deleting and adding again would leave a hole in each Map per
   * update (V8 doubles a Map whose holes fill it, so the index held twice the room it needs).
   */
  set(obj: T, previous?: T): void {
    const fresh = objectKey(obj);
    const name = deploymentNameOf(obj);
    const ids = idsOf(obj);
    if (previous === undefined) {
      this.#byName.add(name, fresh);
      for (const id of ids) this.#byId.add(id, fresh);
      return;
    }
    const oldName = deploymentNameOf(previous);
    // The copy of the key held since the object was first indexed, not another.
    const key = this.#byName.held(oldName, fresh);
    if (oldName !== name) {
      this.#byName.remove(oldName, key);
      this.#byName.add(name, key);
    }
    const oldIds = idsOf(previous);
    for (const id of oldIds) if (!ids.includes(id)) this.#byId.remove(id, key);
    for (const id of ids) if (!oldIds.includes(id)) this.#byId.add(id, key);
  }

  /** Drops `obj` (the version last indexed) from the index. */
  delete(obj: T): void {
    const key = objectKey(obj);
    this.#byName.remove(deploymentNameOf(obj), key);
    for (const id of idsOf(obj)) this.#byId.remove(id, key);
  }

  /** Keys of the objects claiming this deployment name (to wake them when a holder goes). */
  keysNamed(name: string): string[] {
    return this.#byName.keys(name);
  }

  claims(query: ClaimQuery): Claim[] {
    const keys = new Set<string>(query.name ? this.keysNamed(query.name) : []);
    for (const id of query.ids ?? []) for (const key of this.#byId.keys(id)) keys.add(key);
    const out: Claim[] = [];
    for (const key of keys) {
      const obj = this.#objects.get(key);
      if (!obj) continue;
      const claim = visibleClaim(obj, this.#identityOf, query);
      if (claim) out.push(claim);
    }
    return out;
  }
}

function idsOf(obj: ClaimSource): string[] {
  const adopt = obj.metadata.annotations?.[Annotation.AdoptDeploymentId];
  return [obj.status?.deploymentId, adopt].filter((id): id is string => !!id);
}

/**
 * Object keys by a value (a deployment name or id). Nearly every value has one object: it is stored as
 * the key itself, a Set only when a second object shares it (10,000 one-element Sets cost megabytes);
 * a value with no object left is dropped.
 */
class KeysBy {
  readonly #map = new Map<string, string | Set<string>>();

  add(value: string, key: string): void {
    const held = this.#map.get(value);
    if (held === undefined || held === key) this.#map.set(value, key);
    else if (typeof held === 'string') this.#map.set(value, new Set([held, key]));
    else held.add(key);
  }

  remove(value: string, key: string): void {
    const held = this.#map.get(value);
    if (held === key) this.#map.delete(value);
    else if (typeof held !== 'string' && held?.delete(key)) {
      if (held.size === 1) this.#map.set(value, held.values().next().value as string);
    }
  }

  /** The copy of `key` held under `value`, or `key` when none is. */
  held(value: string, key: string): string {
    return this.copyOf(value, key) ?? key;
  }

  /** The copy of `key` held under `value`, undefined when none is. */
  copyOf(value: string, key: string): string | undefined {
    const held = this.#map.get(value);
    if (typeof held === 'string') return held === key ? held : undefined;
    for (const k of held ?? []) if (k === key) return k;
    return undefined;
  }

  keys(value: string): string[] {
    const held = this.#map.get(value);
    return held === undefined ? [] : typeof held === 'string' ? [held] : [...held];
  }
}
