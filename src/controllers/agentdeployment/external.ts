/**
 * The AgentDeployment's external resource, after crossplane-runtime's managed-resource contract:
 * observe, create, update, delete. It hides how a deployment is found (the batched observer's snapshot
 * or a GET, adoption by annotation, the name lookup after a crash between POST and status write) and
 * keeps the observer's bookkeeping, so the steps read as decisions. Each action records the event that
 * says what it did; none writes status or conditions.
 */
import { Annotation, EventReason, Reason } from '../../api/names.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../../controlplane/errors.ts';
import { isDeleting, revisionAgeMs, revisionPollDelayMs } from '../../controlplane/progress.ts';
import type {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  Revision,
} from '../../controlplane/schemas.ts';
import { Stall, Wait } from '../../runtime/outcome.ts';
import { deletedElsewhere } from './decide.ts';
import { forgetDeployment } from './status.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass, DeploymentClient } from './types.ts';

export interface ExternalDeployment {
  /** The deployment this object manages, or undefined when one must be created. */
  observe(options: { mayHaveCreated: boolean }): Promise<Deployment | undefined>;
  create(request: DeploymentCreateRequest): Promise<Deployment>;
  update(
    deploymentId: string,
    patch: DeploymentPatchRequest,
    changed: readonly string[],
  ): Promise<Deployment>;
  /**
   * Deletes what this object manages (recorded id, or what an earlier pass may have created), once:
   * a deployment the platform is already deleting is not asked again. Returns those still there.
   */
  delete(options: { mayHaveCreated: boolean; deleteTracingProject?: boolean }): Promise<Deployment[]>;
  revision(deploymentId: string, revisionId: string): Promise<Revision>;
  /** Starts a new revision from an existing one's configuration; `why` goes in the event. */
  redeploy(deploymentId: string, revisionId: string, why: string): Promise<Deployment>;
  /** A first-hand read, when a snapshot is known to be older than what happened. */
  refresh(deploymentId: string): Promise<Deployment>;
}

export function externalDeployment(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  client: DeploymentClient,
): ExternalDeployment {
  const { observer } = deps;
  const { obj, status } = pass;
  const deploymentName = pass.spec.name ?? obj.metadata.name;
  const note = (reason: string, message: string, type: 'Normal' | 'Warning' = 'Normal') =>
    pass.events.push({ type, reason, message });

  const read = async (id: string): Promise<Deployment> => {
    const current = await client.getDeployment(id);
    observer.remember(current);
    return current;
  };

  const getIfExists = async (id: string): Promise<Deployment | undefined> => {
    try {
      return await client.getDeployment(id);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  };

  /** A name refused because a deployment the platform is deleting still holds it: wait, do not stall. */
  const waitForNameIfDeleting = async (): Promise<void> => {
    const holder = (await client.findDeploymentsByName(deploymentName)).find((d) => isDeleting(d.status));
    if (!holder) return;
    throw new Wait(
      'WaitingForName',
      `the name ${deploymentName} is still held by deployment ${holder.id}, which the platform is deleting (${holder.status}); it is created once the name is free`,
      revisionPollDelayMs(revisionAgeMs(holder.updated_at, deps.now().getTime()), deps.revisionPollMs),
    );
  };

  /**
   * A change refused with 409 because the platform started deleting the deployment after the snapshot
   * this pass acted on: wait (`Deleting`) instead of retrying as a failure.
   */
  const waitIfDeleting = async (id: string, err: unknown): Promise<never> => {
    if (err instanceof ConflictError) {
      const current = await getIfExists(id);
      if (current && isDeleting(current.status)) {
        observer.remember(current);
        throw new Wait('Deleting', deletedElsewhere(current));
      }
    }
    throw err;
  };

  const observeRecorded = async (id: string): Promise<Deployment | undefined> => {
    const cached = observer.fresh(id);
    if (cached) return cached;
    try {
      return await read(id);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      observer.forget(id);
      note(
        EventReason.DeploymentMissing,
        `deployment ${id} no longer exists on the control plane; creating it again`,
        'Warning',
      );
      forgetDeployment(status);
      return undefined;
    }
  };

  const adopt = async (id: string): Promise<Deployment> => {
    try {
      const adopted = await read(id);
      status.deploymentId = adopted.id;
      note(EventReason.Adopted, `adopted deployment ${adopted.id} (${adopted.name})`);
      return adopted;
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      throw new Stall(
        'AdoptionFailed',
        `annotation ${Annotation.AdoptDeploymentId} names ${id}, which does not exist`,
      );
    }
  };

  return {
    async observe({ mayHaveCreated }) {
      const adoptId = obj.metadata.annotations?.[Annotation.AdoptDeploymentId];
      if (status.deploymentId) {
        if (adoptId && adoptId !== status.deploymentId) {
          throw new Stall(
            'AdoptionConflict',
            `annotation ${Annotation.AdoptDeploymentId} names ${adoptId} but this object manages ${status.deploymentId}`,
          );
        }
        const recorded = await observeRecorded(status.deploymentId);
        if (recorded) return recorded;
      } else if (adoptId) {
        return adopt(adoptId);
      }
      if (!mayHaveCreated) return undefined;
      // No id recorded, but an earlier pass may have created it and died before writing status. One the
      // platform is deleting is not it (it only holds the name until it is gone).
      const existing = (await client.findDeploymentsByName(deploymentName)).find(
        (d) => !isDeleting(d.status),
      );
      if (!existing) return undefined;
      observer.remember(existing);
      status.deploymentId = existing.id;
      note(EventReason.Found, `found existing deployment ${existing.id} named ${deploymentName}`);
      return existing;
    },

    async create(request) {
      let created: Deployment;
      try {
        created = await client.createDeployment(request);
      } catch (err) {
        // A name already taken by a deployment this object did not create is for a person to settle.
        if (!(err instanceof BadRequestError)) throw err;
        await waitForNameIfDeleting();
        throw new Stall(
          'Rejected',
          `${err.message}. If an existing deployment of that name should be managed by this object, set the annotation ${Annotation.AdoptDeploymentId} to its id; otherwise choose another spec.name`,
        );
      }
      observer.remember(created);
      note(EventReason.Created, `created deployment ${created.id} (${deploymentName})`);
      return created;
    },

    async update(deploymentId, patch, changed) {
      const patched = await client
        .patchDeployment(deploymentId, patch)
        .catch((err: unknown) => waitIfDeleting(deploymentId, err));
      observer.remember(patched);
      const revision =
        patched.latest_revision_id !== status.latestRevisionId
          ? `; new revision ${patched.latest_revision_id}`
          : '';
      note(EventReason.Patched, `patched ${changed.join(', ')}${revision}`);
      return patched;
    },

    async delete({ mayHaveCreated, deleteTracingProject }) {
      const ids = status.deploymentId
        ? [status.deploymentId]
        : mayHaveCreated
          ? (await client.findDeploymentsByName(deploymentName)).map((d) => d.id)
          : [];
      const remaining: Deployment[] = [];
      for (const id of ids) {
        const before = await getIfExists(id);
        if (!before) continue;
        if (!isDeleting(before.status)) {
          try {
            await client.deleteDeployment(id, { ...(deleteTracingProject ? { deleteTracingProject } : {}) });
          } catch (err) {
            if (!(err instanceof NotFoundError)) throw err;
          }
        }
        // The platform deletes asynchronously: look again, so a quick deletion ends in this pass.
        const after = await getIfExists(id);
        if (!after) note(EventReason.Deleted, `deleted deployment ${id}`);
        else {
          if (!isDeleting(before.status)) {
            note(
              Reason.Deleting,
              `deletion of deployment ${id} requested; the platform reports ${after.status}`,
            );
          }
          remaining.push(after);
        }
      }
      return remaining;
    },

    revision: (deploymentId, revisionId) => client.getRevision(deploymentId, revisionId),
    async redeploy(deploymentId, revisionId, why) {
      const redeployed = await client
        .redeployRevision(deploymentId, revisionId)
        .catch((err: unknown) => waitIfDeleting(deploymentId, err));
      observer.remember(redeployed);
      note(
        EventReason.Redeployed,
        `redeployed revision ${revisionId} (${why}); new revision ${redeployed.latest_revision_id}`,
      );
      return redeployed;
    },
    refresh: read,
  };
}
