/**
 * The AgentDeployment's external resource, after crossplane-runtime's managed-resource contract:
 * observe, create, update, delete. It hides how the owned deployment is found (the batched observer's
 * snapshot or a GET, adoption by annotation, the create guard's lookup by name) and keeps the observer's
 * bookkeeping and the ownership record in status (id, credentials digest, pending create), so the steps
 * read as decisions. Each action records the event that says what it did. Only create makes status
 * durable mid-pass, through the step's `persist`; none writes conditions.
 */
import { Annotation, EventReason, Reason } from '../../api/names.ts';
import { DEFAULT_TIMEOUTS } from '../../controlplane/client.ts';
import { credentialsKey } from '../../controlplane/credentials.ts';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  ValidationFailedError,
} from '../../controlplane/errors.ts';
import { isDeleting, revisionAgeMs, revisionPollDelayMs } from '../../controlplane/progress.ts';
import type {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  Revision,
} from '../../controlplane/schemas.ts';
import { deploymentNameOf } from '../../reconcile/claims.ts';
import { deletedElsewhere } from '../../reconcile/decide.ts';
import { Stall, Wait } from '../../runtime/outcome.ts';
import { judgeFound } from './guard.ts';
import { forgetDeployment } from './status.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass, DeploymentClient } from './types.ts';

/**
 * How long after an unanswered create a deleted object keeps its finalizer while the name shows nothing:
 * the POST may still commit after the client gave up on it (twice its deadline), and the object must
 * still be there to delete what it made.
 */
export const LATE_COMMIT_WINDOW_MS = 2 * DEFAULT_TIMEOUTS.totalMs;

export interface ExternalDeployment {
  /**
   * The deployment this object owns: its recorded id (404: created again, unless the credentials changed
   * since it was recorded), an adoption by annotation (accepted only for an existing deployment of the
   * object's name), or its own create whose answer was lost (the create guard). Undefined when it owns
   * none and no live deployment holds its name. Any other deployment of its name is someone else's:
   * NameConflict (or CreateUnconfirmed), nothing sent.
   */
  observe(): Promise<Deployment | undefined>;
  /**
   * Creates the deployment behind the create guard: marks the create pending and makes that durable
   * (`persist`) before the POST, and records the id (and credentials digest) in status when it answers.
   * The caller ends the pass right there, so the shell's status write that follows is the id's durable
   * record; should it fail, the mark lets the next pass find the deployment and take it as its own.
   */
  create(request: DeploymentCreateRequest, persist: () => Promise<void>): Promise<Deployment>;
  update(
    deploymentId: string,
    patch: DeploymentPatchRequest,
    changed: readonly string[],
  ): Promise<Deployment>;
  /**
   * Deletes the deployment this object owns, by its recorded id only (or, with a create pending, the one
   * the create guard proves it made), once: a deployment the platform is already deleting is not asked
   * again. Returns those still there; an object that owns nothing sends nothing.
   */
  delete(options: { deleteTracingProject?: boolean }): Promise<Deployment[]>;
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
  const deploymentName = deploymentNameOf({ ...obj, spec: pass.spec });
  const tenant = pass.tenant;
  if (!pass.credentials) throw new Error('external resource used before credentials were resolved');
  const identity = credentialsKey(pass.credentials);
  const note = (reason: string, message: string, type: 'Normal' | 'Warning' = 'Normal') =>
    pass.events.push({ type, reason, message });

  const read = async (id: string): Promise<Deployment> => {
    const current = await client.getDeployment(id);
    observer.remember(identity, current);
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

  /** This object owns `d` from now on: the id, and the tenant it lives in. */
  const own = (d: Deployment) => {
    status.deploymentId = d.id;
    if (tenant) status.credentialsDigest = tenant;
    delete status.createPendingSince;
    observer.remember(identity, d);
  };

  /** Another object (namespace/name) of this tenant that records or adopts `id`, if any. */
  const claimedBy = (id: string): string | undefined => {
    if (!tenant) return undefined;
    const self = obj.metadata.uid ?? obj.metadata.name;
    return deps
      .claims({ tenant, identity, ids: [id] })
      .find((c) => c.uid !== self && (c.deploymentId === id || c.adoptId === id))?.key;
  };

  /** The deployments of this object's name: one that is live, and one the platform is deleting. */
  const lookup = async () => {
    const found = await client.findDeploymentsByName(deploymentName);
    return {
      live: found.find((d) => !isDeleting(d.status)),
      deleting: found.find((d) => isDeleting(d.status)),
    };
  };

  /** A name held by a deployment the platform is deleting: wait, do not stall. */
  const waitForName = (holder: Deployment): never => {
    throw new Wait(
      'WaitingForName',
      `the name ${deploymentName} is still held by deployment ${holder.id}, which the platform is deleting (${holder.status}); it is created once the name is free`,
      revisionPollDelayMs(revisionAgeMs(holder.updated_at, deps.now().getTime()), deps.revisionPollMs),
    );
  };

  /** A live deployment of this object's name: its own when the create guard's evidence says so. */
  const takeIfMadeHere = (found: Deployment, pendingSince: string | undefined): Deployment => {
    const verdict = judgeFound({ found, pendingSince, claimedBy: claimedBy(found.id) });
    if (!verdict.take) throw new Stall(verdict.reason, verdict.message);
    own(found);
    note(EventReason.Found, verdict.message);
    return found;
  };

  /**
   * A change refused with 409 because the platform started deleting the deployment after the snapshot
   * this pass acted on: wait (`Deleting`) instead of retrying as a failure.
   */
  const waitIfDeleting = async (id: string, err: unknown): Promise<never> => {
    if (err instanceof ConflictError) {
      const current = await getIfExists(id);
      if (current && isDeleting(current.status)) {
        observer.remember(identity, current);
        throw new Wait('Deleting', deletedElsewhere(current));
      }
    }
    throw err;
  };

  /** Deleting with a create unanswered and nothing of the name yet: wait out a late commit first. */
  const holdForLateCommit = (pendingSince: string) => {
    const until = Date.parse(pendingSince) + LATE_COMMIT_WINDOW_MS;
    const left = until - deps.now().getTime();
    if (!(left > 0)) return;
    throw new Wait(
      Reason.Deleting,
      `a create sent at ${pendingSince} got no answer and nothing named ${deploymentName} exists yet; it may still commit, so the finalizer stays until ${new Date(until).toISOString()} and the name is looked up again then (set spec.deletionPolicy to Orphan to release it now)`,
      left,
    );
  };

  /** The recorded deployment missing under credentials other than those it was recorded with. */
  const credentialsChanged = (id: string, doing: string): Stall =>
    new Stall(
      'CredentialsChanged',
      `deployment ${id} was created or adopted under other credentials (tenant and base URL digest ${status.credentialsDigest}, now ${tenant}) and the current ones do not find it, so ${doing}. Restore the credentials it was recorded with (spec.credentialsSecretRef, its tenantId and baseUrl); to leave it and start over under the current ones, delete this object with spec.deletionPolicy Orphan and create it again`,
    );
  const credentialsDiffer = () =>
    status.credentialsDigest !== undefined && tenant !== undefined && status.credentialsDigest !== tenant;

  const observeRecorded = async (id: string): Promise<Deployment | undefined> => {
    const cached = observer.fresh(identity, id);
    if (cached) return cached;
    try {
      return await read(id);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      observer.forget(identity, id);
      if (credentialsDiffer()) throw credentialsChanged(id, 'nothing is created in its place');
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
    let found: Deployment;
    try {
      found = await read(id);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      throw new Stall(
        'AdoptionFailed',
        `annotation ${Annotation.AdoptDeploymentId} names ${id}, which does not exist`,
      );
    }
    if (found.name !== deploymentName) {
      // Its name is what the object would claim: one of another name is not this object's to take.
      throw new Stall(
        'AdoptionFailed',
        `annotation ${Annotation.AdoptDeploymentId} names ${id}, whose name is ${found.name}, not ${deploymentName} (spec.name, or metadata.name): set spec.name to ${found.name} in a new object to adopt it`,
      );
    }
    own(found);
    note(EventReason.Adopted, `adopted deployment ${found.id} (${found.name})`);
    return found;
  };

  return {
    async observe() {
      const adoptId = obj.metadata.annotations?.[Annotation.AdoptDeploymentId];
      if (status.deploymentId) {
        if (adoptId && adoptId !== status.deploymentId) {
          throw new Stall(
            'AdoptionConflict',
            `annotation ${Annotation.AdoptDeploymentId} names ${adoptId} but this object manages ${status.deploymentId}`,
          );
        }
        const recorded = await observeRecorded(status.deploymentId);
        // A record from before digests were kept: the deployment answers, so these are its credentials.
        if (recorded && !status.credentialsDigest && tenant) status.credentialsDigest = tenant;
        if (recorded) return recorded;
      } else if (adoptId) {
        return adopt(adoptId);
      }
      // Nothing owned: a live deployment of this name is someone else's, unless the guard proves otherwise.
      const { live, deleting } = await lookup();
      if (live) return takeIfMadeHere(live, status.createPendingSince);
      if (deleting) waitForName(deleting);
      return undefined;
    },

    async create(request, persist) {
      const fresh = !status.createPendingSince;
      if (fresh) {
        status.createPendingSince = deps.now().toISOString();
        try {
          await persist();
        } catch (err) {
          // Another object creates the name: nothing was sent, so the mark goes (the status write clears it).
          if (err instanceof Stall) delete status.createPendingSince;
          throw err;
        }
      }
      let created: Deployment;
      try {
        created = await client.createDeployment(request);
      } catch (err) {
        // Without an answer (timeout, dropped connection, 5xx) the mark stays: the next pass looks.
        if (!(err instanceof BadRequestError || err instanceof ValidationFailedError)) throw err;
        // Answered: this POST made nothing. A mark from an earlier, unanswered POST stays in force.
        const pendingSince = status.createPendingSince;
        if (fresh) delete status.createPendingSince;
        if (err instanceof BadRequestError) {
          // The name may have been taken since the lookup: by someone else, or by that earlier POST.
          const { live, deleting } = await lookup();
          if (live) return takeIfMadeHere(live, fresh ? undefined : pendingSince);
          if (deleting) waitForName(deleting);
          throw new Stall('Rejected', err.message);
        }
        throw err;
      }
      own(created);
      note(EventReason.Created, `created deployment ${created.id} (${deploymentName})`);
      return created;
    },

    async update(deploymentId, patch, changed) {
      const patched = await client
        .patchDeployment(deploymentId, patch)
        .catch((err: unknown) => waitIfDeleting(deploymentId, err));
      observer.remember(identity, patched);
      const revision =
        patched.latest_revision_id !== status.latestRevisionId
          ? `; new revision ${patched.latest_revision_id}`
          : '';
      note(EventReason.Patched, `patched ${changed.join(', ')}${revision}`);
      return patched;
    },

    async delete({ deleteTracingProject }) {
      if (!status.deploymentId && status.createPendingSince) {
        // A create whose answer was lost: delete what it made, and only that.
        const { live } = await lookup();
        const verdict =
          live &&
          judgeFound({ found: live, pendingSince: status.createPendingSince, claimedBy: claimedBy(live.id) });
        if (live && verdict?.take) {
          own(live);
          note(EventReason.Found, verdict.message);
        }
        if (!live) holdForLateCommit(status.createPendingSince);
      }
      const ids = status.deploymentId ? [status.deploymentId] : [];
      const remaining: Deployment[] = [];
      for (const id of ids) {
        const before = await getIfExists(id);
        if (!before && credentialsDiffer()) throw credentialsChanged(id, 'it cannot be deleted from here');
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
      observer.remember(identity, redeployed);
      note(
        EventReason.Redeployed,
        `redeployed revision ${revisionId} (${why}); new revision ${redeployed.latest_revision_id}`,
      );
      return redeployed;
    },
    refresh: read,
  };
}
