/**
 * The first batched listing as the workers start (a restart, a takeover): which objects it covers, the
 * reconciler that holds an object's pass until the listing of its credentials ended (observer.ts,
 * prime), so the pass finds a fresh snapshot instead of reading its deployment with a GET, and which
 * objects of a takeover have a pass that calls and writes nothing (settledAtGeneration).
 */
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import { Annotation, ConditionType } from '../../api/names.ts';
import { type Credentials, credentialsKey } from '../../controlplane/credentials.ts';
import { pendingRedeployRequest } from '../../runtime/annotations.ts';
import type { Reconciler } from '../../runtime/controller.ts';
import { objectKey } from '../../runtime/keys.ts';
import type { DeploymentObserver, RecordedDeployment } from './observer.ts';

type CredentialsOf = (obj: AgentDeployment) => Credentials | undefined;

/** Objects that record a deployment, are not being deleted, and whose credentials resolve. */
export function recordedDeployments(
  objects: readonly AgentDeployment[],
  credentialsOf: CredentialsOf,
): RecordedDeployment[] {
  return objects.flatMap((obj) => {
    const deploymentId = obj.status?.deploymentId;
    if (!deploymentId || obj.metadata.deletionTimestamp) return [];
    const credentials = credentialsOf(obj);
    if (!credentials) return [];
    return [
      { key: objectKey(obj), credentials, deploymentId, latestRevisionId: obj.status?.latestRevisionId },
    ];
  });
}

/** `reconcile`, but a pass whose credentials are still being listed returns at once and comes back after. */
export function heldWhileListing(
  reconcile: Reconciler,
  observer: Pick<DeploymentObserver, 'priming' | 'holdUntilPrimed'>,
  objectOf: (key: string) => AgentDeployment | undefined,
  credentialsOf: CredentialsOf,
): Reconciler {
  return async (key, ctx) => {
    if (observer.priming) {
      const obj = objectOf(key);
      const credentials = obj && credentialsOf(obj);
      if (credentials && observer.holdUntilPrimed(credentialsKey(credentials), key)) return {};
    }
    return reconcile(key, ctx);
  };
}

/**
 * Whether an object's status is settled at its generation: it records its deployment (no create under
 * way, not being deleted), describes its current spec and is Ready at it, with no reconcile or redeploy
 * requested, no verification in flight or due. Of a takeover's objects, those settled whose deployment
 * the first listing shows unchanged (the latest revision their status records) have a pass that calls
 * and writes nothing, unless something not in the object changed (a Secret rotated, a deployment
 * edited without a new revision): their pass still runs, without a token of the pace
 * (WorkQueue.addUnpaced); everything else takes its token, the changed ones first.
 */
export function settledAtGeneration(obj: AgentDeployment, now: Date): boolean {
  const { status, metadata } = obj;
  if (!status?.deploymentId || status.createPendingSince || metadata.deletionTimestamp) return false;
  if (status.observedGeneration !== metadata.generation) return false;
  const ready = status.conditions?.find((c) => c.type === ConditionType.Ready);
  if (ready?.status !== 'True' || ready.observedGeneration !== metadata.generation) return false;
  const reconcileRequest = metadata.annotations?.[Annotation.ReconcileRequestedAt];
  if (reconcileRequest !== undefined && reconcileRequest !== status.lastHandledReconcileAt) return false;
  if (pendingRedeployRequest(obj, status) !== undefined) return false;
  const verification = status.verification;
  if (verification?.current) return false;
  const due = verification?.nextVerificationAt;
  return due === undefined || Date.parse(due) > now.getTime();
}
