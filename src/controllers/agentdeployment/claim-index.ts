/**
 * The claims of every watched AgentDeployment, kept current by the object informer and indexed by
 * deployment name and id, so the ownership gate reads the few that matter without scanning the cache.
 * A claim's tenant is computed when asked: the digest recorded with its id, else the tenant its current
 * credentials reach (resolved from the Secret cache; unknown while they do not resolve).
 */
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import { Annotation } from '../../api/names.ts';
import { type Claim, claimOf, deploymentNameOf } from '../../reconcile/claims.ts';
import { objectKey } from '../../runtime/keys.ts';

export class ClaimIndex {
  readonly #objects = new Map<string, AgentDeployment>();
  readonly #byName = new Map<string, Set<string>>();
  readonly #byId = new Map<string, Set<string>>();
  readonly #tenantOf: (obj: AgentDeployment) => string | undefined;

  constructor(tenantOf: (obj: AgentDeployment) => string | undefined) {
    this.#tenantOf = tenantOf;
  }

  set(obj: AgentDeployment): void {
    const key = objectKey(obj);
    this.delete(key);
    this.#objects.set(key, obj);
    add(this.#byName, deploymentNameOf(obj), key);
    for (const id of idsOf(obj)) add(this.#byId, id, key);
  }

  delete(key: string): void {
    const obj = this.#objects.get(key);
    if (!obj) return;
    this.#objects.delete(key);
    this.#byName.get(deploymentNameOf(obj))?.delete(key);
    for (const id of idsOf(obj)) this.#byId.get(id)?.delete(key);
  }

  /** Keys of the objects claiming this deployment name (to wake them when a holder goes). */
  keysNamed(name: string): string[] {
    return [...(this.#byName.get(name) ?? [])];
  }

  claims(query: { tenant: string; name?: string; ids?: readonly string[] }): Claim[] {
    const keys = new Set<string>(query.name ? this.keysNamed(query.name) : []);
    for (const id of query.ids ?? []) for (const key of this.#byId.get(id) ?? []) keys.add(key);
    const out: Claim[] = [];
    for (const key of keys) {
      const obj = this.#objects.get(key);
      if (!obj) continue;
      const recorded = obj.status?.deploymentId && obj.status.credentialsDigest;
      const claim = claimOf(obj, recorded ? undefined : this.#tenantOf(obj));
      if (claim.tenant === query.tenant) out.push(claim);
    }
    return out;
  }
}

function idsOf(obj: AgentDeployment): string[] {
  const adopt = obj.metadata.annotations?.[Annotation.AdoptDeploymentId];
  return [obj.status?.deploymentId, adopt].filter((id): id is string => !!id);
}

function add(index: Map<string, Set<string>>, value: string, key: string): void {
  const keys = index.get(value) ?? new Set<string>();
  keys.add(key);
  index.set(value, keys);
}
