/**
 * Claims: which object may write a deployment of a tenant. Per tenant (credentials digest), a deployment
 * id and a deployment name each belong to at most one AgentDeployment. A claim comes from an object's
 * status (the id it recorded when it created or adopted the deployment, its pending create) and spec (the
 * deployment name, the adopt annotation); the claims of other objects come from the informer cache.
 *
 * Tie-break, deterministic whatever order the passes run in: a recorded id ranks first, then a pending
 * create or an adoption asked for by annotation of an id known to exist, then a bare name; between equal
 * ranks the object created first (metadata.creationTimestamp) wins, then the lower uid. The loser writes
 * nothing. An adoption ranks only once its id is known to exist (`existing`: the ids the name lookup
 * found under the credential identity the claims are seen with): an annotation is any text, and one that
 * names no deployment must not let a younger object hold the name of an older one.
 *
 * Every text of a claim (ids, annotation values, times) is another object's: it is cleaned (cleanPeerText)
 * before it reaches a message, which becomes this object's condition and event.
 */
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import type { ObjectMeta } from '../../api/common.ts';
import { Annotation } from '../../api/names.ts';
import { cleanPeerText } from '../../lib/peer-text.ts';
import { isObserveOnly } from './management.ts';

export interface Claim {
  /** namespace/name of the object. */
  key: string;
  uid: string;
  /** metadata.creationTimestamp (RFC 3339, second precision). */
  createdAt: string;
  /** The deployment name (spec.name, or metadata.name). */
  name: string;
  /** Tenant digest: the recorded one with a recorded id, else the object's current credentials'. */
  tenant: string | undefined;
  /** The deployment id recorded in status: created or accepted adoption. */
  deploymentId?: string | undefined;
  /** The adopt annotation, while no id is recorded. */
  adoptId?: string | undefined;
  /** A create sent (or about to be) whose answer was not recorded yet. */
  pendingSince?: string | undefined;
  /**
   * The object is being deleted: it gives up its name (its deployment, if deleted, holds the name until
   * gone: the lookup then waits for it), but keeps its id until its deletion policy has run.
   */
  deleting?: boolean | undefined;
}

export type ClaimConflict =
  | { reason: 'AlreadyManaged'; other: Claim; deploymentId: string; message: string }
  | { reason: 'NameConflict'; other: Claim; message: string };

/**
 * What a claim reads of an object: all that another replica's object is cached with under
 * --sharding=auto (controllers/agentdeployment/cache/projection.ts), besides its credentials.
 */
export interface ClaimSource {
  metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'uid' | 'annotations'> & { [field: string]: unknown };
  spec: Pick<AgentDeploymentSpec, 'name' | 'managementPolicies'>;
  status?:
    | Pick<AgentDeploymentStatus, 'deploymentId' | 'credentialsDigest' | 'createPendingSince'>
    | undefined;
}

export function deploymentNameOf(obj: {
  metadata: { name: string };
  spec: { name?: string | undefined };
}): string {
  return obj.spec.name ?? obj.metadata.name;
}

/** The claim an object makes, given the tenant its current credentials reach (undefined: unknown). */
export function claimOf(obj: ClaimSource, currentTenant: string | undefined): Claim {
  const status = obj.status ?? {};
  const recorded = status.deploymentId;
  return {
    key: `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`,
    uid: obj.metadata.uid ?? obj.metadata.name,
    createdAt: String(obj.metadata.creationTimestamp ?? ''),
    name: deploymentNameOf(obj),
    tenant: recorded ? (status.credentialsDigest ?? currentTenant) : currentTenant,
    deploymentId: recorded,
    adoptId: recorded ? undefined : obj.metadata.annotations?.[Annotation.AdoptDeploymentId],
    pendingSince: recorded ? undefined : status.createPendingSince,
    deleting: !!obj.metadata.deletionTimestamp,
  };
}

/** Deployment ids known to exist under the credential identity the claims are seen with. */
export type ExistingIds = ReadonlySet<string>;

const NONE_KNOWN: ExistingIds = new Set();

/** The most characters of a claim's text (an id, an annotation value) a message shows: status ids' bound. */
const MAX_CLAIM_TEXT_CHARS = 64;

/** A claim's text (an id, an annotation value, a time) as a message shows it. */
export const claimText = (text: string) => cleanPeerText(text, MAX_CLAIM_TEXT_CHARS);

/** Whether the claim adopts an id known to exist. */
const adoptsExisting = (c: Claim, existing: ExistingIds) =>
  c.adoptId !== undefined && existing.has(c.adoptId);

/** Whether a claim's rank waits on whether the id it adopts exists (it records none, creates nothing). */
const ranksOnProof = (c: Claim): boolean => !c.deploymentId && !c.pendingSince && c.adoptId !== undefined;

/** Whether who wins between two claims can turn on whether an id one of them adopts exists. */
export const turnsOnProof = (a: Claim, b: Claim): boolean =>
  !a.deploymentId && !b.deploymentId && (ranksOnProof(a) || ranksOnProof(b));

const rank = (c: Claim, existing: ExistingIds) =>
  c.deploymentId ? 2 : c.pendingSince || adoptsExisting(c, existing) ? 1 : 0;

/** Whether claim a wins over claim b (see the tie-break above). */
export function outranks(a: Claim, b: Claim, existing: ExistingIds = NONE_KNOWN): boolean {
  const ra = rank(a, existing);
  const rb = rank(b, existing);
  if (ra !== rb) return ra > rb;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt;
  return a.uid < b.uid;
}

function holding(c: Claim, existing: ExistingIds): string {
  if (c.deploymentId) return `manages deployment ${claimText(c.deploymentId)}`;
  if (c.adoptId && adoptsExisting(c, existing)) return `adopts deployment ${claimText(c.adoptId)}`;
  if (c.pendingSince) return `is creating it (since ${claimText(c.pendingSince)})`;
  return 'was created first';
}

/**
 * The first claim of another object of the same tenant that wins over this object's: on the deployment
 * id it records or adopts (AlreadyManaged), or on its deployment name (NameConflict). Undefined: this
 * object's claims stand. Claims of an unknown tenant never conflict (that object cannot write anything
 * until its credentials resolve, and then it meets this object's claims). `existing`: the ids known to
 * exist (an adoption of another id ranks as a bare name).
 */
export function claimConflict(
  self: Claim,
  others: readonly Claim[],
  existing: ExistingIds = NONE_KNOWN,
): ClaimConflict | undefined {
  const mine = others.filter((o) => o.uid !== self.uid && o.tenant !== undefined && o.tenant === self.tenant);
  const target = self.deploymentId ?? self.adoptId;
  if (target) {
    for (const other of mine) {
      const takes = other.deploymentId === target || (!other.deploymentId && other.adoptId === target);
      if (!takes || !outranks(other, self, existing)) continue;
      const how = self.deploymentId
        ? `this object records it too (a copied status?), but ${other.key} wins the tie-break`
        : 'an object cannot adopt a deployment another object manages or adopts';
      return {
        reason: 'AlreadyManaged',
        other,
        deploymentId: target,
        message: `deployment ${claimText(target)} is already claimed by ${other.key}, which ${holding(other, existing)}: ${how}, so nothing is sent. Remove the annotation ${Annotation.AdoptDeploymentId} from this object, or release the deployment from ${other.key} first (delete it with spec.deletionPolicy Orphan)`,
      };
    }
  }
  for (const other of mine) {
    if (other.name !== self.name || other.deleting) continue;
    if (target && other.deploymentId === target) continue; // the id rule above decided
    if (!outranks(other, self, existing)) continue;
    return {
      reason: 'NameConflict',
      other,
      message: `the deployment name ${self.name} is claimed on this control plane by ${other.key}, which ${holding(other, existing)}; nothing is sent. Choose another spec.name, or delete ${other.key}`,
    };
  }
  return undefined;
}

/**
 * The create guard's contest, once this object's pending mark is visible in the cache (so every object
 * that existed when the mark was written is too): among the objects of its name and tenant that record
 * no id, pending marks do not count, only age does. Two new objects that both got past the gate (neither
 * saw the other yet) therefore agree on one creator, the older; the other stands down before its POST.
 */
export function createContest(
  self: Claim,
  others: readonly Claim[],
  existing: ExistingIds = NONE_KNOWN,
): ClaimConflict | undefined {
  const bare = (c: Claim): Claim => ({ ...c, pendingSince: undefined });
  const conflict = claimConflict(bare(self), others.map(bare), existing);
  if (conflict?.reason !== 'NameConflict') return conflict;
  if (conflict.other.deploymentId || adoptsExisting(conflict.other, existing)) return conflict;
  return {
    ...conflict,
    message: `the deployment name ${self.name} is also being created by ${conflict.other.key}, which was created before this object; it creates the deployment and this object stands down before sending anything. Choose another spec.name, or delete ${conflict.other.key}`,
  };
}

/** What an object's current credentials are: the tenant they reach, and the identity (key included). */
export interface CredentialIdentity {
  /** tenantDigest: base URL and tenant id. */
  tenant: string;
  /** credentialsKey: base URL, tenant id and key. */
  identity: string;
}

/**
 * The claim another object makes as an object of tenant `query.tenant` and credential identity
 * `query.identity` sees it; undefined when it makes none there. `identityOf`: the object's current
 * credentials, undefined when they do not resolve or may not be used.
 *
 * A claim without a recorded id (a name, a pending create, an adopt annotation) counts only for objects
 * of the same credential identity (base URL, tenant and key): a Secret that names another tenant's base
 * URL and tenant id with a junk key must not claim that tenant's names. A recorded id counts for its
 * whole tenant when the tenant is named by a tenant id (`query.tenanted`): it proves the object's
 * credentials made or adopted the deployment in that workspace. Without a tenant id a base URL is no
 * tenant (every account's keys share it): a recorded id then counts only for the identity that holds it
 * now, so another platform account's deployments never hold a name or an id here. Objects whose
 * credentials are not allowed (a control plane not on the list, default credentials their namespace may
 * not use) claim nothing. An observe-only object claims no name (it never creates), only an id it records
 * or asks to adopt.
 */
export function visibleClaim<T extends ClaimSource>(
  obj: T,
  identityOf: (obj: T) => CredentialIdentity | undefined,
  query: { tenant: string; identity: string; tenanted: boolean },
): Claim | undefined {
  if (obj.status?.deploymentId && obj.status.credentialsDigest) {
    const claim = claimOf(obj, undefined);
    if (claim.tenant !== query.tenant) return undefined;
    return query.tenanted || identityOf(obj)?.identity === query.identity ? claim : undefined;
  }
  const current = identityOf(obj);
  if (current?.tenant !== query.tenant || current.identity !== query.identity) return undefined;
  const claim = claimOf(obj, current.tenant);
  // Observe-only never creates: its name is no claim (an adoption it asks for still is).
  if (isObserveOnly(obj.spec) && !claim.adoptId) return undefined;
  return claim;
}
