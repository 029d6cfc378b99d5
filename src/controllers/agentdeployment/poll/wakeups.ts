/**
 * Which updates of a cached AgentDeployment wake passes (pure): its own pass, and those of the objects
 * that lost a deployment name to it.
 */
import { Annotation } from '../../../api/names.ts';
import { deploymentNameOf } from '../../../reconcile/agentdeployment/claims.ts';
import { shouldEnqueueUpdate } from '../../../runtime/update-filter.ts';
import { type CachedAgentDeployment, isProjection, projectAgentDeployment } from '../cache/projection.ts';

/**
 * shouldEnqueueUpdate, but between a projection and the object (either way) only what a projection
 * keeps is compared: a change of form alone is no change.
 */
export function changedEnough(oldObj: CachedAgentDeployment, newObj: CachedAgentDeployment): boolean {
  if (!isProjection(oldObj) && !isProjection(newObj)) return shouldEnqueueUpdate(oldObj, newObj);
  const [before, after] = [projectAgentDeployment(oldObj), projectAgentDeployment(newObj)];
  return (
    before.metadata.generation !== after.metadata.generation ||
    String(before.metadata.deletionTimestamp ?? '') !== String(after.metadata.deletionTimestamp ?? '') ||
    before.metadata.annotations?.[Annotation.AdoptDeploymentId] !==
      after.metadata.annotations?.[Annotation.AdoptDeploymentId]
  );
}

/** Whether the object gave up its deployment name: it names another, or stood down from a create. */
export function releasesName(oldObj: CachedAgentDeployment, newObj: CachedAgentDeployment): boolean {
  if (deploymentNameOf(oldObj) !== deploymentNameOf(newObj)) return true;
  return (
    !!oldObj.status?.createPendingSince && !newObj.status?.createPendingSince && !newObj.status?.deploymentId
  );
}
