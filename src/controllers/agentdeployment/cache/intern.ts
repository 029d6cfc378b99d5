/**
 * The fields of AgentDeployments and of the deployments the batched poll keeps whose values repeat
 * across objects (API version, namespace, listener, image, reasons, digests of the same spec): interned,
 * so 10,000 cached objects share one copy of each. Unique values (names, uids, ids, messages, times) are
 * not put in the table (they would only fill it).
 */
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import type { Deployment } from '../../../controlplane/schemas.ts';
import type { Interner } from '../../../lib/interner.ts';
import { CONFIG_KEYS } from '../../../reconcile/agentdeployment/history.ts';
import type { AgentDeploymentProjection } from './projection.ts';

/** What revisions of many objects share: their configuration, trigger and outcome. */
const HISTORY_REPEATS = [...CONFIG_KEYS, 'trigger', 'status', 'outcome', 'verification'] as const;

export function internAgentDeployment(interner: Interner, obj: AgentDeployment): AgentDeployment {
  interner.fields(obj, ['apiVersion', 'kind']);
  const { metadata, spec, status } = obj;
  interner.fields(metadata, ['namespace']);
  if (metadata.finalizers) metadata.finalizers = metadata.finalizers.map((f) => interner.intern(f));
  interner.fields(spec, ['deletionPolicy', 'progressDeadline', 'source']);
  interner.fields(spec.credentialsSecretRef, ['name']);
  interner.fields(spec.sourceConfig, ['listenerId', 'integrationId', 'repoUrl', 'deploymentType']);
  interner.fields(spec.sourceRevisionConfig, ['imageUri', 'repoRef', 'graphConfigPath']);
  interner.fields(status, [
    'deploymentStatus',
    'revisionStatus',
    'imageVersion',
    'credentialsDigest',
    'appliedConfigDigest',
    'secretsDigest',
    'repoCommitSha',
  ]);
  for (const condition of status?.conditions ?? []) interner.fields(condition, ['type', 'status', 'reason']);
  for (const entry of status?.history ?? []) interner.fields(entry, HISTORY_REPEATS);
  oneRevisionId(status);
  return obj;
}

/**
 * A settled object names its latest revision four times (latest, active, last good, the newest history
 * entry), each its own string as the watch decoded it: one copy of it instead (a revision id is unique
 * to its object, so it is not put in the table).
 */
function oneRevisionId(status: AgentDeployment['status']): void {
  const latest = status?.latestRevisionId;
  if (!status || !latest) return;
  if (status.activeRevisionId === latest) status.activeRevisionId = latest;
  if (status.lastGoodRevision === latest) status.lastGoodRevision = latest;
  for (const entry of status.history ?? []) if (entry.id === latest) entry.id = latest;
}

/**
 * A projection's repeated values: its namespace, credentials digest, finalizers, Secret reference and
 * management policies. Strings only: no array or object is shared between projections (a shared one
 * would have to be frozen, a trap for any code that writes to it; sharing them bought under 1 MiB at
 * 10,000 over 3).
 */
export function internProjection(
  interner: Interner,
  obj: AgentDeploymentProjection,
): AgentDeploymentProjection {
  interner.fields(obj.metadata, ['namespace']);
  interner.fields(obj.status, ['credentialsDigest']);
  const { metadata, spec } = obj;
  if (metadata.finalizers) metadata.finalizers = metadata.finalizers.map((f) => interner.intern(f));
  interner.fields(spec.credentialsSecretRef, ['name']);
  if (spec.managementPolicies)
    spec.managementPolicies = spec.managementPolicies.map((p) => interner.intern(p));
  return obj;
}

export function internDeployment(interner: Interner, deployment: Deployment): Deployment {
  interner.fields(deployment, ['source', 'status', 'image_version']);
  interner.fields(deployment.source_config, ['listener_id', 'integration_id', 'repo_url', 'deployment_type']);
  interner.fields(deployment.source_revision_config, ['image_uri', 'repo_ref', 'langgraph_config_path']);
  return deployment;
}
