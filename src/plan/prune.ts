/**
 * What deleting an AgentDeployment would do, for `kubectl agd plan --prune`: the objects in the cluster
 * that match the selector but are no longer in the input (removed from git, so a pruning sync deletes
 * them). Each is decided by the controller's own deletion chain (reconcile/agentdeployment/deletion/, the credentials
 * and claims read as the finalize step reads them) with read-only reads: `- delete` names the deployment that would be deleted; `- orphan` says the object
 * would go and leave the platform as it is (deletionPolicy Orphan, observe-only, or it owns nothing).
 */

import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../api/agentdeployment.ts';
import { lookupName, readById } from '../controlplane/deployment-reads.ts';
import { REVISION_POLL_MIN_MS } from '../controlplane/progress.ts';
import { deploymentNameOf } from '../reconcile/agentdeployment/claims.ts';
import {
  type DeletionFacts,
  deletionFactsOf,
  recordedIdOf,
} from '../reconcile/agentdeployment/deletion/facts.ts';
import { planDeletion } from '../reconcile/agentdeployment/deletion/program.ts';
import type { FinalDeletionVerdict } from '../reconcile/agentdeployment/deletion/verdict.ts';
import { readDeletionCredentials } from '../reconcile/agentdeployment/deletion-credentials.ts';
import { agentDeploymentFacts } from '../reconcile/agentdeployment/facts-of.ts';
import { defaultCredentialsRefused } from '../reconcile/agentdeployment/gates/default-credentials-scope.ts';
import { PlanStop, planPort, planSettings, policiesOf, stop } from './gather.ts';
import type { LiveObject, PlanEntry, PlanWorld } from './model.ts';

type Spec = AgentDeploymentSpec;
type Entry = Omit<PlanEntry, 'kind' | 'namespace' | 'name' | 'notes' | 'removed'>;

/** The plan of deleting `live`, an object removed from the input. */
export async function planRemoved(live: LiveObject, world: PlanWorld): Promise<PlanEntry> {
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
    return { ...head, ...(await plannedDeletion(live, namespace, world, notes)) };
  } catch (err) {
    // The credentials cannot be resolved (the controller stops or waits there, the finalizer kept), or
    // the plan cannot tell.
    if (err instanceof PlanStop) return { ...head, ...err.entry };
    throw err;
  }
}

async function plannedDeletion(
  live: LiveObject,
  namespace: string,
  world: PlanWorld,
  notes: string[],
): Promise<Entry> {
  const spec = (live.spec ?? {}) as Spec;
  const status = structuredClone(live.status ?? {}) as AgentDeploymentStatus;
  const metadata = { ...live.metadata, namespace };
  const obj = { metadata, spec, status };
  const name = deploymentNameOf(obj);
  const settings = await planSettings(world, namespace);
  const facts = agentDeploymentFacts({
    object: obj,
    settings,
    digestKey: world.digestKey,
    now: world.now?.() ?? new Date(),
    revisionPollMs: REVISION_POLL_MIN_MS,
  });
  // Pruning is what deletes it: planned as if its deletion had begun.
  const policies = await policiesOf(world, namespace, obj.metadata.labels);
  if (!policies.readable) notes.push(policies.why);
  const deleting = deletionFactsOf(
    obj,
    name,
    facts.now,
    defaultCredentialsRefused(facts),
    policies.readable ? policies.selecting : [],
  );
  const port = planPort(world, namespace, { spec, labels: obj.metadata.labels }, notes);
  const client = () => {
    if (!facts.credentials?.ok)
      throw new Error('the control plane was asked for before credentials resolved');
    return world.controlPlane(facts.credentials.credentials);
  };
  const verdict = await planDeletion(deleting, {
    async read(read, f) {
      if (read === 'credentials') {
        if (!spec.credentialsSecretRef && !world.defaultCredentials.baseUrl) {
          stop(
            'unknown',
            'NoCredentials',
            `no control-plane credentials: cannot tell whether deployment ${deleting.recordedId ?? name} would be deleted`,
          );
        }
        f.credentials = await readDeletionCredentials(facts, port);
      } else if (read === 'byName') f.byName = await lookupName(client(), name);
      else f[read] = await readById(client(), recordedIdOf(f));
    },
    async act(verdict) {
      notes.push(verdict.event.message);
    },
  });
  switch (verdict.kind) {
    case 'delete':
      return {
        action: 'delete',
        message: `delete deployment ${verdict.id} (${name})${verdict.deleteTracingProject ? ' and its tracing project' : ''}`,
        deploymentId: verdict.id,
      };
    case 'wait':
      if (verdict.why !== 'platformDeleting')
        return { action: 'wait', reason: verdict.reason, message: verdict.message };
      return {
        action: 'wait',
        reason: verdict.reason,
        message: `the platform is already deleting deployment ${verdict.deployment.id} (${verdict.deployment.status}); nothing more is sent`,
        deploymentId: verdict.deployment.id,
      };
    case 'stall':
      return { action: 'stall', reason: verdict.reason, message: verdict.message };
    case 'release':
      return { action: 'orphan', message: orphanMessage(verdict, deleting), ...idOf(verdict.leftId) };
  }
}

const idOf = (id: string | undefined) => (id ? { deploymentId: id } : {});

function orphanMessage(verdict: Extract<FinalDeletionVerdict, { kind: 'release' }>, f: DeletionFacts) {
  switch (verdict.how) {
    case 'noFinalizer':
      return 'the object has no finalizer: it goes, and nothing is sent';
    case 'gone':
      return `deployment ${f.recordedId} no longer exists: nothing to delete`;
    default:
      return verdict.event?.message ?? 'this object owns no deployment on the control plane: nothing deleted';
  }
}
