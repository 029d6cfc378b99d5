/**
 * The decision at the heart of a pass, pure: given what the object wants and what the control plane has,
 * create, leave alone, patch (with exactly what differs), or stall on a change the platform cannot make.
 * The reconciler acts on it; a plan can print it.
 */
import type { AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import type {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
} from '../../controlplane/schemas.ts';
import { computeDrift } from '../../translate/drift.ts';
import type { AppliedDigests } from './types.ts';

export type Decision =
  | { action: 'create'; request: DeploymentCreateRequest }
  | { action: 'none' }
  | { action: 'patch'; patch: DeploymentPatchRequest; changed: string[]; createsRevision: boolean }
  | { action: 'stall'; reason: 'ImmutableFieldChanged'; message: string };

export interface DecisionInput {
  desired: DeploymentCreateRequest;
  /** The deployment this object manages; undefined when there is none. */
  observed: Deployment | undefined;
  /** What the object resolves to now. */
  digests: AppliedDigests;
  /** What was last applied, as status records it. */
  applied: Pick<AgentDeploymentStatus, 'secretsDigest' | 'appliedConfigDigest'>;
}

export function decide(input: DecisionInput): Decision {
  const { desired, observed, digests, applied } = input;
  if (!observed) return { action: 'create', request: desired };
  const drift = computeDrift({
    desired,
    observed,
    secretsDigest: { desired: digests.secrets, applied: applied.secretsDigest },
    unechoedDigest: { desired: digests.unechoed, applied: applied.appliedConfigDigest },
  });
  if (drift.immutable.length > 0) {
    const fields = drift.immutable.map(
      (d) => `${d.field} (spec ${JSON.stringify(d.desired)}, control plane ${JSON.stringify(d.observed)})`,
    );
    return {
      action: 'stall',
      reason: 'ImmutableFieldChanged',
      message: `the control plane cannot change ${fields.join(', ')}; revert the spec or create a new object`,
    };
  }
  if (!drift.patch) return { action: 'none' };
  return {
    action: 'patch',
    patch: drift.patch,
    changed: drift.changed,
    createsRevision: drift.createsRevision,
  };
}
