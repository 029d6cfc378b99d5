/**
 * What a replica under --sharding=auto keeps of an AgentDeployment assigned to another replica (pure): only
 * what its own objects' checks read of other objects, so a replica's memory holds its share in full
 * and the rest as a few hundred bytes each (the issue's "memory divides, it does not repeat").
 *
 * Who reads another object, and what:
 * - claims (reconcile/agentdeployment/claims.ts, claim-index.ts): namespace, name, uid, creationTimestamp,
 *   deletionTimestamp, the adopt annotation; spec.name, spec.managementPolicies; status.deploymentId,
 *   credentialsDigest, createPendingSince; and the object's credentials (below).
 * - credentials (usableCredentials, the claims' identity, the queue's tenant): namespace,
 *   spec.credentialsSecretRef.
 * - the credentials Secrets' in-use finalizer (credentials-in-use.ts): spec.credentialsSecretRef,
 *   deletionTimestamp, finalizers.
 * - the first batched listing of keys just gained (first-listing.ts): status.deploymentId and
 *   latestRevisionId, deletionTimestamp.
 * - the pace of a takeover (first-listing.ts, settledAtGeneration): whether the object was settled at
 *   its generation, and until when (settled.ts), computed as it is projected.
 * - an update's wake-ups (wakeups.ts: changedEnough, releasesName): generation, deletionTimestamp,
 *   the name and the pending create; resourceVersion, to tell versions apart.
 * Nothing else: no spec to send, no conditions, no history. A pass never runs on a projection: the
 * object is read in full first (cached-share.ts). The type
 * cannot stand where an AgentDeployment is needed (no apiVersion, kind or full spec), so a reader that
 * needs more does not compile.
 */
import type {
  AgentDeployment,
  AgentDeploymentSpec,
  AgentDeploymentStatus,
} from '../../../api/agentdeployment.ts';
import type { ObjectMeta } from '../../../api/common.ts';
import { Annotation } from '../../../api/names.ts';
import { settledUntil } from './settled.ts';

export interface AgentDeploymentProjection {
  /** Tells a projection from the object. */
  readonly projected: true;
  /** settled.ts: until when the object was settled at its generation (epoch ms); absent: it was not. */
  readonly settledUntil?: number;
  /**
   * name, namespace, uid, generation, resourceVersion, finalizers, creationTimestamp, deletionTimestamp,
   * and of the annotations the adopt annotation only. Loose as ObjectMeta is (the timestamps are strings
   * in JSON, Dates to client-node's types), so it passes for a Kubernetes object's metadata.
   */
  metadata: Pick<
    ObjectMeta,
    'name' | 'namespace' | 'uid' | 'generation' | 'resourceVersion' | 'finalizers' | 'annotations'
  > & { [field: string]: unknown };
  spec: Pick<AgentDeploymentSpec, 'name' | 'credentialsSecretRef' | 'managementPolicies'>;
  status?: Pick<
    AgentDeploymentStatus,
    'deploymentId' | 'credentialsDigest' | 'createPendingSince' | 'latestRevisionId'
  >;
}

/** What the informer cache holds for an AgentDeployment: the object, or, not this replica's, a projection. */
export type CachedAgentDeployment = AgentDeployment | AgentDeploymentProjection;

export function isProjection(obj: CachedAgentDeployment): obj is AgentDeploymentProjection {
  return 'projected' in obj;
}

/** The object in full, or undefined when only a projection is cached. */
export function fullObject(obj: CachedAgentDeployment | undefined): AgentDeployment | undefined {
  return obj && !isProjection(obj) ? obj : undefined;
}

/** How the cache holds an object: in full, or as a projection. */
export type CachedForm = 'full' | 'projection';

/** The fields above, each only when set (an absent field takes no memory). */
export function projectAgentDeployment(obj: CachedAgentDeployment): AgentDeploymentProjection {
  if (isProjection(obj)) return obj;
  const { metadata: m, spec, status } = obj;
  const adopt = m.annotations?.[Annotation.AdoptDeploymentId];
  const settled = settledUntil(obj);
  return {
    projected: true,
    ...(settled === undefined ? {} : { settledUntil: settled }),
    metadata: defined({
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      generation: m.generation,
      resourceVersion: m.resourceVersion,
      finalizers: m.finalizers,
      creationTimestamp: m.creationTimestamp,
      deletionTimestamp: m.deletionTimestamp,
      annotations: adopt === undefined ? undefined : { [Annotation.AdoptDeploymentId]: adopt },
    }) as AgentDeploymentProjection['metadata'],
    spec: defined({
      name: spec.name,
      credentialsSecretRef: spec.credentialsSecretRef && { name: spec.credentialsSecretRef.name },
      managementPolicies: spec.managementPolicies,
    }),
    ...(status
      ? {
          status: defined({
            deploymentId: status.deploymentId,
            credentialsDigest: status.credentialsDigest,
            createPendingSince: status.createPendingSince,
            latestRevisionId: status.latestRevisionId,
          }),
        }
      : {}),
  };
}

/**
 * A new object of the fields that are set, added in order (deleting a property instead would turn the
 * object into a dictionary, which V8 stores in more memory).
 */
function defined<T extends Record<string, unknown>>(fields: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as T;
}
