/**
 * Whether an object's status is settled at its generation (pure): it records its deployment (no create
 * under way, not being deleted), describes its current spec and is Ready at it, with no reconcile or
 * redeploy requested and no verification in flight. Such an object, when the first listing of a
 * takeover shows its deployment unchanged, has a pass that calls and writes nothing until its next
 * verification is due (first-listing.ts, settledAtGeneration). Read from the object in full, and kept in
 * its projection (projection.ts), since a replica gains objects it held only as projections.
 */
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import { Annotation, ConditionType } from '../../../api/names.ts';
import { pendingRedeployRequest } from '../../../runtime/annotations.ts';

/** Until when (epoch ms; Infinity: no verification due) the object is settled; undefined: not settled. */
export function settledUntil(obj: AgentDeployment): number | undefined {
  const { status, metadata } = obj;
  if (!status?.deploymentId || status.createPendingSince || metadata.deletionTimestamp) return undefined;
  if (status.observedGeneration !== metadata.generation) return undefined;
  const ready = status.conditions?.find((c) => c.type === ConditionType.Ready);
  if (ready?.status !== 'True' || ready.observedGeneration !== metadata.generation) return undefined;
  const reconcileRequest = metadata.annotations?.[Annotation.ReconcileRequestedAt];
  if (reconcileRequest !== undefined && reconcileRequest !== status.lastHandledReconcileAt) return undefined;
  if (pendingRedeployRequest(obj, status) !== undefined) return undefined;
  const verification = status.verification;
  if (verification?.current) return undefined;
  const due = verification?.nextVerificationAt;
  return due === undefined ? Number.POSITIVE_INFINITY : Date.parse(due);
}
