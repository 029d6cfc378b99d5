/**
 * The fields of AgentDeployments and of the deployments the batched poll keeps whose values repeat
 * across objects (API version, namespace, listener, image, reasons, digests of the same spec): interned,
 * so 10,000 cached objects share one copy of each. Unique values (names, uids, ids, messages, times) are
 * left alone: interning them would only fill the table.
 */
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import type { Interner } from '../../lib/interner.ts';
import type { AgentDeploymentProjection } from './projection.ts';

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
  return obj;
}

/** A projection's repeated values: its namespace, finalizers, credentials Secret name and digest. */
export function internProjection(
  interner: Interner,
  obj: AgentDeploymentProjection,
): AgentDeploymentProjection {
  interner.fields(obj.metadata, ['namespace']);
  if (obj.metadata.finalizers)
    obj.metadata.finalizers = obj.metadata.finalizers.map((f) => interner.intern(f));
  interner.fields(obj.spec.credentialsSecretRef, ['name']);
  interner.fields(obj.status, ['credentialsDigest']);
  return obj;
}

export function internDeployment(interner: Interner, deployment: Deployment): Deployment {
  interner.fields(deployment, ['source', 'status', 'image_version']);
  interner.fields(deployment.source_config, ['listener_id', 'integration_id', 'repo_url', 'deployment_type']);
  interner.fields(deployment.source_revision_config, ['image_uri', 'repo_ref', 'langgraph_config_path']);
  return deployment;
}
