/** Status bookkeeping of an AgentDeployment: what was observed on the control plane, and what was applied. */
import type { AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import type { AppliedDigests } from './desired-deployment.ts';

/** Descriptive values cut to the status schema's limits, so a long one cannot fail every status write. */
const withinLimit = (value: string | null | undefined, max: number): string | undefined =>
  value === null || value === undefined
    ? undefined
    : value.length <= max
      ? value
      : `${value.slice(0, max - 1)}…`;

export function recordObserved(s: AgentDeploymentStatus, d: Deployment): void {
  s.deploymentId = d.id;
  if (d.latest_revision_id !== s.latestRevisionId) {
    s.latestRevisionId = d.latest_revision_id ?? undefined;
    s.revisionStatus = undefined;
  }
  s.activeRevisionId = d.active_revision_id ?? undefined;
  s.deploymentStatus = d.status;
  s.url = withinLimit(d.source_config.custom_url, 2048);
  s.imageVersion = withinLimit(d.image_version, 256);
  s.repoCommitSha = withinLimit(d.source_revision_config.repo_commit_sha, 64);
}

/** A new configuration was applied: spec.retry's count starts over for it. */
export function recordApplied(s: AgentDeploymentStatus, d: Deployment, digests: AppliedDigests): void {
  s.secretsDigest = digests.secrets;
  s.appliedConfigDigest = digests.unechoed;
  delete s.retries;
  recordObserved(s, d);
}

/** Everything status says about a deployment, for when it is gone. */
const DEPLOYMENT_FIELDS = [
  'deploymentId',
  'latestRevisionId',
  'activeRevisionId',
  'revisionStatus',
  'deploymentStatus',
  'url',
  'imageVersion',
  'repoCommitSha',
  'secretsDigest',
  'appliedConfigDigest',
  'verification',
  // Revisions of a deployment that is gone cannot be redeployed.
  'history',
  'lastGoodRevision',
] as const satisfies readonly (keyof AgentDeploymentStatus)[];

export function forgetDeployment(s: AgentDeploymentStatus): void {
  for (const k of DEPLOYMENT_FIELDS) delete s[k];
}

/**
 * This object owns `deploymentId` from now on: the id, and the tenant its credentials reach (the
 * ownership record claims read); a create that was pending is answered.
 */
export function recordOwned(
  s: AgentDeploymentStatus,
  deploymentId: string,
  tenant: string | undefined,
): void {
  s.deploymentId = deploymentId;
  if (tenant) s.credentialsDigest = tenant;
  delete s.createPendingSince;
}

/**
 * A deployment found and watched: what status shows of it; a record from before digests were kept gets
 * the tenant of the credentials the deployment answers (`tenant`, when resolved).
 */
export function recordWatched(s: AgentDeploymentStatus, d: Deployment, tenant: string | undefined): void {
  if (s.deploymentId === d.id && !s.credentialsDigest && tenant) s.credentialsDigest = tenant;
  recordObserved(s, d);
}
