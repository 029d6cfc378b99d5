/**
 * What deleting an AgentDeployment would do, for `kubectl agd plan --prune`: the objects in the cluster
 * that match the selector but are no longer in the input (removed from git, so a pruning sync deletes
 * them). Each is decided by the controller's own deletion decision (reconcile/deletion.ts) fed with
 * read-only reads: `- delete` names the deployment that would be deleted; `- orphan` says the object
 * would go and leave the platform as it is (deletionPolicy Orphan, observe-only, or it owns nothing).
 */
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../api/agentdeployment.ts';
import { NotFoundError } from '../controlplane/errors.ts';
import { isDeleting } from '../controlplane/progress.ts';
import { credentialsPolicy, resolveCredentials } from '../controlplane/resolve-credentials.ts';
import { tenantDigest } from '../controlplane/tenant.ts';
import { claimConflict, claimOf, deploymentNameOf } from '../reconcile/claims.ts';
import {
  type DeletionCredentials,
  type DeletionFacts,
  deletion,
  deletionFactsOf,
} from '../reconcile/deletion.ts';
import type { ReadById } from '../reconcile/ownership.ts';
import { Stall, Wait } from '../runtime/outcome.ts';
import { claimsOf } from './agentdeployment.ts';
import type { LiveObject, PlanClient, PlanEntry, PlanKube, PlanWorld } from './model.ts';

type Spec = AgentDeploymentSpec;
type Entry = Omit<PlanEntry, 'kind' | 'namespace' | 'name' | 'notes' | 'removed'>;

/** The plan of deleting `live`, an object removed from the input. */
export async function planRemoved(live: LiveObject, kube: PlanKube, world: PlanWorld): Promise<PlanEntry> {
  const namespace = live.metadata.namespace ?? '';
  const notes: string[] = [];
  const head = {
    kind: 'AgentDeployment' as const,
    namespace,
    name: live.metadata.name,
    notes,
    removed: true,
  };
  try {
    return { ...head, ...(await decide(live, namespace, kube, world, notes)) };
  } catch (err) {
    // The credentials cannot be resolved: the controller stops (or waits) there, the finalizer kept.
    if (err instanceof Stall) return { ...head, action: 'stall', reason: err.reason, message: err.message };
    if (err instanceof Wait) return { ...head, action: 'wait', reason: err.reason, message: err.message };
    throw err;
  }
}

async function decide(
  live: LiveObject,
  namespace: string,
  kube: PlanKube,
  world: PlanWorld,
  notes: string[],
): Promise<Entry> {
  const spec = (live.spec ?? {}) as Spec;
  const status = (live.status ?? {}) as AgentDeploymentStatus;
  const obj = { ...live, metadata: { ...live.metadata, namespace }, spec, status };
  const name = deploymentNameOf(obj as Parameters<typeof deploymentNameOf>[0]);
  // Pruning is what deletes it: planned as if its deletion had begun.
  const facts = { ...deletionFactsOf(obj, name, new Date()), deleting: true };
  let client: PlanClient | undefined;
  const readById = async (id: string): Promise<ReadById> => {
    try {
      return await (client as PlanClient).getDeployment(id);
    } catch (err) {
      if (err instanceof NotFoundError) return 'missing';
      throw err;
    }
  };
  for (;;) {
    const verdict = deletion(facts);
    switch (verdict.kind) {
      case 'read':
        if (verdict.read === 'credentials') {
          if (!spec.credentialsSecretRef && !world.defaultCredentials.baseUrl) {
            return {
              action: 'unknown',
              reason: 'NoCredentials',
              message: `no control-plane credentials: cannot tell whether deployment ${facts.recordedId ?? name} would be deleted`,
            };
          }
          const read = await credentialsOf(obj, namespace, kube, world);
          client = read.client;
          facts.credentials = read.credentials;
        } else if (verdict.read === 'byName') {
          const named = await (client as PlanClient).findDeploymentsByName(name);
          facts.byName = {
            live: named.find((d) => !isDeleting(d.status)),
            deleting: named.find((d) => isDeleting(d.status)),
          };
        } else facts[verdict.read] = await readById(facts.recordedId as string);
        continue;
      case 'take':
        notes.push(verdict.event.message);
        facts.recordedId = verdict.deployment.id;
        continue;
      case 'delete':
        return {
          action: 'delete',
          message: `delete deployment ${verdict.id} (${name})${verdict.deleteTracingProject ? ' and its tracing project' : ''}`,
          deploymentId: verdict.id,
        };
      case 'wait':
        if (verdict.why === 'lateCommit')
          return { action: 'wait', reason: 'Deleting', message: verdict.message };
        return {
          action: 'wait',
          reason: 'Deleting',
          message: `the platform is already deleting deployment ${verdict.deployment.id} (${verdict.deployment.status}); nothing more is sent`,
          deploymentId: verdict.deployment.id,
        };
      case 'stall':
      case 'refused':
        return { action: 'stall', reason: verdict.reason, message: verdict.message };
      case 'release':
        return { action: 'orphan', message: orphanMessage(verdict, facts), ...idOf(verdict.leftId) };
      case 'none':
        throw new Error('unreachable: the object is planned as deleted');
    }
  }
}

const idOf = (id: string | undefined) => (id ? { deploymentId: id } : {});

function orphanMessage(verdict: Extract<ReturnType<typeof deletion>, { kind: 'release' }>, f: DeletionFacts) {
  switch (verdict.how) {
    case 'noFinalizer':
      return 'the object has no finalizer: it goes, and nothing is sent';
    case 'gone':
      return `deployment ${f.recordedId} no longer exists: nothing to delete`;
    default:
      return verdict.event?.message ?? 'this object owns no deployment on the control plane: nothing deleted';
  }
}

/** The object's credentials, as the controller resolves them, and the claims of the other objects. */
async function credentialsOf(
  obj: LiveObject & { metadata: { namespace: string }; spec: Spec },
  namespace: string,
  kube: PlanKube,
  world: PlanWorld,
): Promise<{ client: PlanClient; credentials: DeletionCredentials }> {
  const ref = obj.spec.credentialsSecretRef;
  const data = ref ? await kube.secret(namespace, ref.name) : undefined;
  const credentials = resolveCredentials(
    ref,
    (name) => (name === ref?.name ? data : undefined),
    credentialsPolicy(world.defaultCredentials, world.allowedControlPlanes),
  );
  const tenant = tenantDigest(credentials);
  const others = (await kube.agentDeployments(namespace)) ?? [];
  const claims = claimsOf(others, obj, tenant);
  const conflict = claimConflict(claimOf(obj as Parameters<typeof claimOf>[0], tenant), claims);
  return {
    client: world.controlPlane(credentials),
    credentials: {
      tenant,
      conflict,
      claimedBy: (id) =>
        claims.find((c) => c.tenant === tenant && (c.deploymentId === id || c.adoptId === id))?.key,
    },
  };
}
