/**
 * The management policy of an AgentDeployment (spec.managementPolicies, after Crossplane's): full
 * management, or observe-only. Pure, shared by the controller's observe-only gate and the plan: what an
 * observe-only object reports where a fully managed one would act. Observe-only sends nothing: a missing
 * deployment is not created, drift is reported (never patched), a failed revision is not redeployed, and
 * deleting the object never deletes the deployment.
 */
import type { AgentDeploymentSpec, DeletionPolicy } from '../../api/agentdeployment.ts';
import { snakeToCamel } from '../../lib/paths.ts';
import type { DriftDecision } from './drift-decision.ts';

export function isObserveOnly(spec: Pick<AgentDeploymentSpec, 'managementPolicies'>): boolean {
  return spec.managementPolicies?.length === 1 && spec.managementPolicies[0] === 'Observe';
}

/** What deleting the object does: observe-only orphans, whatever deletionPolicy says. */
export function deletionPolicyOf(
  spec: Pick<AgentDeploymentSpec, 'managementPolicies' | 'deletionPolicy'>,
): DeletionPolicy {
  return isObserveOnly(spec) ? 'Orphan' : (spec.deletionPolicy ?? 'Delete');
}

/** A control-plane request path as the spec names it: `source_config.resource_spec.cpu` -> `spec.sourceConfig.resourceSpec.cpu`. */
export function specPathOf(requestPath: string): string {
  return `spec.${requestPath.split('.').map(snakeToCamel).join('.')}`;
}

export type ObserveVerdict =
  /** Nothing to observe: a fully managed object would create it. */
  | { kind: 'notFound' }
  /** The platform is deleting it. */
  | { kind: 'deleting'; message: string }
  /** What differs, as spec paths; empty when in sync. `secretsTakenAsCurrent`: masked values accepted. */
  | { kind: 'observed'; drift: string[]; secretsTakenAsCurrent: boolean };

/** What an observe-only object reports for the decision a fully managed one would act on. */
export function observeVerdict(decision: DriftDecision): ObserveVerdict {
  switch (decision.kind) {
    case 'create':
      return { kind: 'notFound' };
    case 'wait':
      return { kind: 'deleting', message: decision.message };
    case 'none':
      return { kind: 'observed', drift: [], secretsTakenAsCurrent: decision.secretsTakenAsCurrent };
    case 'patch':
      return {
        kind: 'observed',
        drift: [...new Set(decision.changed.map(specPathOf))],
        secretsTakenAsCurrent: decision.secretsTakenAsCurrent,
      };
    case 'stall':
      return {
        kind: 'observed',
        drift: [...new Set(decision.fields.map(specPathOf))],
        secretsTakenAsCurrent: false,
      };
  }
}

/** The message of drift: which fields, and that nothing is sent. */
export function driftMessage(deploymentId: string, drift: readonly string[]): string {
  return `observe-only: deployment ${deploymentId} differs from the spec in ${drift.join(', ')}; nothing is sent (change the spec, or switch spec.managementPolicies to ["*"] to have it patched)`;
}
