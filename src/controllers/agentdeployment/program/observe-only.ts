/**
 * Observe-only (spec.managementPolicies ["Observe"]): what it reports. The chain's observeOnly gate
 * (reconcile/agentdeployment/gates/observe-only.ts) finds the deployment and its drift, and
 * followRevision follows its revision read-only; the controller records what it watches (gather.ts
 * recordWatched) and sends nothing: no create, patch, redeploy or delete; no smoke run either (it would
 * write a thread on the agent server). Only an adoption asked for by annotation records ownership, so
 * switching to full management later patches nothing when there is no drift (the digests of what the
 * platform has are recorded while in sync), and a deployment merely observed by name still needs that
 * annotation to be managed.
 */
import { ConditionType, Reason } from '../../../api/names.ts';
import { driftMessage } from '../../../reconcile/agentdeployment/management.ts';
import { removeCondition, setCondition } from '../../../runtime/conditions.ts';
import type { AgentDeploymentPass } from '../types.ts';

/** The Drifted condition of an observe-only object; gone under full management. */
export function summarizeDrift(pass: AgentDeploymentPass): void {
  const { status } = pass;
  const conditions = status.conditions ?? [];
  if (status.drift === undefined) {
    status.conditions = removeCondition(conditions, ConditionType.Drifted);
    return;
  }
  const id = pass.deployment?.id ?? status.deploymentId ?? '(unknown)';
  status.conditions = setCondition(
    conditions,
    status.drift.length > 0
      ? {
          type: ConditionType.Drifted,
          status: 'True',
          observedGeneration: pass.generation,
          reason: Reason.DriftDetected,
          message: driftMessage(id, status.drift),
        }
      : {
          type: ConditionType.Drifted,
          status: 'False',
          observedGeneration: pass.generation,
          reason: Reason.InSync,
          message: `observe-only: deployment ${id} matches the spec`,
        },
    pass.decidedAt,
  );
}
