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
import {
  type Claim,
  type ClaimSource,
  type CredentialIdentity,
  deploymentNameOf,
  visibleClaim,
} from './claims.ts';

const objectKey = (obj: ClaimSource) => `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;

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

  set(obj: T): void {
    const key = objectKey(obj);
    this.delete(key);
    this.#objects.set(key, obj);
    this.#byName.add(deploymentNameOf(obj), key);
    for (const id of idsOf(obj)) this.#byId.add(id, key);
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

  keys(value: string): string[] {
    const held = this.#map.get(value);
    return held === undefined ? [] : typeof held === 'string' ? [held] : [...held];
  }
}
