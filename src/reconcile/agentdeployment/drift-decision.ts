/**
 * The decision at the heart of a pass, pure: given what the object wants and what the control plane has,
 * create, leave alone, patch (with exactly what differs), wait while the platform deletes it, or stall on
 * a change the platform cannot make (an immutable field, the removal of every secret).
 * The reconciler acts on it; a plan can print it.
 */
import type { AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import { isDeleting } from '../../controlplane/progress.ts';
import type {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
} from '../../controlplane/schemas.ts';
import { computeDrift } from '../../translate/drift.ts';
import type { AppliedDigests } from './desired-deployment.ts';

export type DriftDecision =
  | { kind: 'create'; request: DeploymentCreateRequest }
  | { kind: 'none'; secretsTakenAsCurrent: boolean }
  | {
      kind: 'patch';
      patch: DeploymentPatchRequest;
      changed: string[];
      createsRevision: boolean;
      secretsTakenAsCurrent: boolean;
    }
  | { kind: 'wait'; reason: 'Deleting'; message: string }
  | {
      kind: 'stall';
      reason: 'ImmutableFieldChanged' | 'SecretsRemovalUnsupported';
      message: string;
      /** The request paths that differ and cannot be sent. */
      fields: string[];
    };

export interface DriftInput {
  desired: DeploymentCreateRequest;
  /** The deployment this object manages; undefined when there is none. */
  observed: Deployment | undefined;
  /** What the object resolves to now. */
  digests: AppliedDigests;
  /** What was last applied, as status records it. */
  applied: Pick<AgentDeploymentStatus, 'secretsDigest' | 'appliedConfigDigest'>;
}

/** What the object says while someone else's deletion of its deployment runs. */
export function deletedElsewhere(d: Pick<Deployment, 'id' | 'status'>): string {
  return `deployment ${d.id} is being deleted on the platform (${d.status}) by someone else; it is created again once it is gone`;
}

export function driftDecision(input: DriftInput): DriftDecision {
  const { desired, observed, digests, applied } = input;
  if (!observed) return { kind: 'create', request: desired };
  if (isDeleting(observed.status)) {
    // Deleted outside this object: nothing can change it now; once gone it is created again.
    return { kind: 'wait', reason: 'Deleting', message: deletedElsewhere(observed) };
  }
  const drift = computeDrift({
    desired,
    observed,
    secretsDigest: { desired: digests.secrets, applied: applied.secretsDigest },
    unechoedDigest: { desired: digests.unechoed, applied: applied.appliedConfigDigest },
    // A deployment observed with no digest recorded was adopted (by annotation, or found by name after
    // a status was lost): masked secret values are taken as current rather than redeployed to find out.
    adoptUnrevealedSecrets: true,
  });
  if (drift.immutable.length > 0) {
    const fields = drift.immutable.map(
      (d) => `${d.field} (spec ${JSON.stringify(d.desired)}, control plane ${JSON.stringify(d.observed)})`,
    );
    return {
      kind: 'stall',
      reason: 'ImmutableFieldChanged',
      fields: drift.immutable.map((d) => d.field),
      message: `the control plane cannot change ${fields.join(', ')}; revert the spec or create a new object`,
    };
  }
  if (drift.secrets === 'removeAllUnsupported') {
    const names = observed.secrets.map((s) => s.name).join(', ');
    return {
      kind: 'stall',
      reason: 'SecretsRemovalUnsupported',
      fields: ['secrets'],
      message: `the spec states no secrets but the deployment still has ${names}: the platform cannot remove every secret (an empty list means "unchanged"), so nothing is sent; keep at least one secret in the spec, or delete the object and create it again`,
    };
  }
  const secretsTakenAsCurrent = drift.secrets === 'takenAsCurrent';
  if (!drift.patch) return { kind: 'none', secretsTakenAsCurrent };
  return {
    kind: 'patch',
    patch: drift.patch,
    changed: drift.changed,
    createsRevision: drift.createsRevision,
    secretsTakenAsCurrent,
  };
}
