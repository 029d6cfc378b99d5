/**
 * Gate `observeOnly` (spec.managementPolicies ["Observe"], reconcile/agentdeployment/management.ts): the deployment is
 * watched and what differs from the spec reported, never sent: no deployment is NotFound (waiting,
 * nothing created), one being deleted is Deleting, else `observed` with its drift (bookkeeping: its
 * revision is followed next, read-only, and the drift is DriftDetected after it).
 */
import { Reason } from '../../../api/names.ts';
import { driftDecision } from '../drift-decision.ts';
import { isObserveOnly, observeVerdict } from '../management.ts';
import { ownedDeployment } from '../owned.ts';
import type { Gate } from '../verdict.ts';

export const observeOnly: Gate = (facts) => {
  const { spec, status } = facts.object;
  if (!isObserveOnly(spec) || !facts.desired?.ok || facts.observation) return undefined;
  const { request, digests } = facts.desired;
  const deployment = ownedDeployment(facts);
  const decision = driftDecision({ desired: request, observed: deployment, digests, applied: status });
  const verdict = observeVerdict(decision);
  if (verdict.kind === 'notFound' || !deployment) {
    const which = status.deploymentId ?? `named ${request.name}`;
    return {
      gate: 'observeOnly',
      kind: 'wait',
      reason: Reason.NotFound,
      message: `observe-only: no deployment ${which} on the control plane; nothing is created`,
      observeOnly: true,
    };
  }
  if (verdict.kind === 'deleting')
    return {
      gate: 'observeOnly',
      kind: 'wait',
      reason: Reason.Deleting,
      message: verdict.message,
      observeOnly: true,
    };
  return {
    gate: 'observeOnly',
    kind: 'observed',
    deployment,
    drift: verdict.drift,
    fields: decision.kind === 'patch' ? decision.changed : decision.kind === 'stall' ? decision.fields : [],
    owned: status.deploymentId === deployment.id,
    digests,
  };
};
