/**
 * The claims of every watched AgentDeployment, kept current by the object informer and indexed by
 * deployment name and id, so the ownership gate reads the few that matter without scanning the cache.
 * A claim's tenant is computed when asked: the digest recorded with its id, else the tenant its current
 * credentials reach (resolved from the Secret cache; unknown while they do not resolve).
 *
 * Which claims a query sees is claims.ts's rule (visibleClaim); the controller indexes the informer
 * cache with it, the plan the objects it lists, so both see the same claims.
 */
import type { AgentDeployment } from '../api/agentdeployment.ts';
import { Annotation } from '../api/names.ts';
import { joinKey } from '../runtime/keys.ts';
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

/** `T`: the objects indexed (AgentDeployments, or what a replica caches of them: projection.ts). */
export class ClaimIndex<T extends ClaimSource = AgentDeployment> {
  readonly #objects = new Map<string, T>();
  readonly #byName = new KeysBy();
  readonly #byId = new KeysBy();
  readonly #identityOf: (obj: T) => CredentialIdentity | undefined;

  constructor(identityOf: (obj: T) => CredentialIdentity | undefined) {
    this.#identityOf = identityOf;
  }

  /**
   * An update changes only what differs: deleting and adding again would leave a hole in each Map per
   * update (V8 doubles a Map whose holes fill it, so the index held twice the room it needs).
   */
  set(obj: T): void {
    const fresh = objectKey(obj);
    const old = this.#objects.get(fresh);
    this.#objects.set(fresh, obj);
    const name = deploymentNameOf(obj);
    const ids = idsOf(obj);
    if (old === undefined) {
      this.#byName.add(name, fresh);
      for (const id of ids) this.#byId.add(id, fresh);
      return;
    }
    const oldName = deploymentNameOf(old);
    // The copy of the key held since the object was first indexed (the Map keeps it too), not another.
    const key = this.#byName.held(oldName, fresh);
    if (oldName !== name) {
      this.#byName.remove(oldName, key);
      this.#byName.add(name, key);
    }
    const oldIds = idsOf(old);
    for (const id of oldIds) if (!ids.includes(id)) this.#byId.remove(id, key);
    for (const id of ids) if (!oldIds.includes(id)) this.#byId.add(id, key);
  }

  delete(key: string): void {
    const obj = this.#objects.get(key);
    if (!obj) return;
    this.#objects.delete(key);
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
    const held = this.#map.get(value);
    if (typeof held === 'string') return held === key ? held : key;
    for (const k of held ?? []) if (k === key) return k;
    return key;
  }

  keys(value: string): string[] {
    const held = this.#map.get(value);
    return held === undefined ? [] : typeof held === 'string' ? [held] : [...held];
  }
}
