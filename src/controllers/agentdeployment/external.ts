/**
 * The AgentDeployment's external resource, after crossplane-runtime's managed-resource contract:
 * observe, create, update, and the reads and the DELETE that deletion (finalize.ts) asks for. It hides
 * how the owned deployment is found (the batched observer's snapshot or a GET, adoption by annotation,
 * the create guard's lookup by name) and keeps the observer's bookkeeping and the ownership record in
 * status (id, credentials digest, pending create), so the steps read as decisions. Each action records
 * the event that says what it did (deletion's outcome events are the finalize step's). Only create
 * makes status durable mid-pass, through the step's `persist`; none writes conditions.
 */
import { Annotation, EventReason, type Reason } from '../../api/names.ts';
import { credentialsKey } from '../../controlplane/credentials.ts';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  ValidationFailedError,
} from '../../controlplane/errors.ts';
import { isDeleting } from '../../controlplane/progress.ts';
import type {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  Revision,
} from '../../controlplane/schemas.ts';
import { deploymentNameOf } from '../../reconcile/claims.ts';
import { deletedElsewhere } from '../../reconcile/decide.ts';
import { isObserveOnly } from '../../reconcile/management.ts';
import {
  type NameLookup,
  nameVerdict,
  type OwnershipFacts,
  type OwnershipVerdict,
  ownership,
  type ReadById,
} from '../../reconcile/ownership.ts';
import { Stall, Wait } from '../../runtime/outcome.ts';
import { forgetDeployment } from './status.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass, DeploymentClient } from './types.ts';

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
   * What deleting reads and sends (reconcile/deletion.ts decides which, and when): the deployments of
   * the object's name, one deployment by id, another object's claim on an id, taking the deployment the
   * create guard proves this object made (recorded, with a Found event), and the DELETE of one id (a 404
   * answer means it is gone already).
   */
  lookup(): Promise<NameLookup>;
  find(deploymentId: string): Promise<ReadById>;
  claimedBy(deploymentId: string): string | undefined;
  take(deployment: Deployment, message: string): void;
  delete(deploymentId: string, options: { deleteTracingProject: boolean }): Promise<void>;
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
  const tenanted = pass.credentials.tenantId !== undefined;
  const note = (reason: EventReason | Reason, message: string, type: 'Normal' | 'Warning' = 'Normal') =>
    pass.events.push({ type, reason, message });

  /** What this pass saw first-hand, held as the object's snapshot if its namespace's budget has room. */
  const remember = (d: Deployment) => observer.remember(identity, d, pass.key);

  const read = async (id: string): Promise<Deployment> => {
    const current = await client.getDeployment(id);
    const overBudget = remember(current);
    if (overBudget) throw overBudget;
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
    remember(d);
  };

  /** Another object (namespace/name) of this tenant that records or adopts `id`, if any. */
  const claimedBy = (id: string): string | undefined => {
    if (!tenant) return undefined;
    const self = obj.metadata.uid ?? obj.metadata.name;
    return deps
      .claims({ tenant, identity, tenanted, ids: [id] })
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

  /** The facts the ownership verdict reads; `read` fills in what it asks for. */
  const facts = (): OwnershipFacts => ({
    name: deploymentName,
    recordedId: status.deploymentId,
    recordedTenant: status.credentialsDigest,
    pendingSince: status.createPendingSince,
    adoptId: obj.metadata.annotations?.[Annotation.AdoptDeploymentId],
    tenant,
    claimedBy,
    statusKnown: true,
    observeOnly: isObserveOnly(pass.spec),
    now: deps.now(),
    revisionPollMs: deps.revisionPollMs,
  });

  /** Acts on a final verdict: records what this object owns, or ends the pass with why not. */
  const act = (verdict: Exclude<OwnershipVerdict, { kind: 'read' } | { kind: 'forget' }>) => {
    switch (verdict.kind) {
      case 'owned': {
        const { deployment, how, message } = verdict;
        if (how === 'observed') return deployment; // watched by name, never recorded as owned
        if (how === 'recorded') {
          // A record from before digests were kept: the deployment answers, so these are its credentials.
          if (!status.credentialsDigest && tenant) status.credentialsDigest = tenant;
          return deployment;
        }
        own(deployment);
        if (message) note(how === 'adopted' ? EventReason.Adopted : EventReason.Found, message);
        return deployment;
      }
      case 'none':
        return undefined;
      case 'stall':
        throw new Stall(verdict.reason, verdict.message);
      case 'wait':
        throw new Wait(verdict.reason, verdict.message, verdict.retryAfterMs);
    }
  };

  /**
   * A change refused with 409 because the platform started deleting the deployment after the snapshot
   * this pass acted on: wait (`Deleting`) instead of retrying as a failure.
   */
  const waitIfDeleting = async (id: string, err: unknown): Promise<never> => {
    if (err instanceof ConflictError) {
      const current = await getIfExists(id);
      if (current && isDeleting(current.status)) {
        remember(current);
        throw new Wait('Deleting', deletedElsewhere(current));
      }
    }
    throw err;
  };

  /** A GET by id as the verdict reads it: 404 is 'missing'. */
  const readById = async (id: string): Promise<ReadById> => {
    try {
      return await read(id);
    } catch (err) {
      if (err instanceof NotFoundError) return 'missing';
      throw err;
    }
  };

  return {
    async observe() {
      const known = facts();
      for (;;) {
        const verdict = ownership(known);
        switch (verdict.kind) {
          case 'read':
            if (verdict.read === 'recorded') {
              const id = known.recordedId as string;
              known.recorded = observer.fresh(identity, id) ?? (await readById(id));
              if (known.recorded === 'missing') observer.forget(identity, id);
            } else if (verdict.read === 'adopted') {
              known.adopted = await readById(known.adoptId as string);
            } else {
              known.byName = await lookup();
            }
            continue;
          case 'forget':
            note(EventReason.DeploymentMissing, verdict.message, 'Warning');
            forgetDeployment(status);
            known.recordedId = undefined;
            continue;
          default:
            return act(verdict);
        }
      }
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
          const verdict = nameVerdict(await lookup(), {
            ...facts(),
            pendingSince: fresh ? undefined : pendingSince,
          });
          if (verdict.kind === 'none') throw new Stall('Rejected', err.message);
          return act(verdict) as Deployment;
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
      remember(patched);
      const revision =
        patched.latest_revision_id !== status.latestRevisionId
          ? `; new revision ${patched.latest_revision_id}`
          : '';
      note(EventReason.Patched, `patched ${changed.join(', ')}${revision}`);
      return patched;
    },

    lookup,
    async find(id) {
      return (await getIfExists(id)) ?? 'missing';
    },
    claimedBy,
    take(d, message) {
      own(d);
      note(EventReason.Found, message);
    },
    async delete(id, { deleteTracingProject }) {
      try {
        await client.deleteDeployment(id, { ...(deleteTracingProject ? { deleteTracingProject } : {}) });
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
      }
    },

    revision: (deploymentId, revisionId) => client.getRevision(deploymentId, revisionId),
    async redeploy(deploymentId, revisionId, why) {
      const redeployed = await client
        .redeployRevision(deploymentId, revisionId)
        .catch((err: unknown) => waitIfDeleting(deploymentId, err));
      remember(redeployed);
      note(
        EventReason.Redeployed,
        `redeployed revision ${revisionId} (${why}); new revision ${redeployed.latest_revision_id}`,
      );
      return redeployed;
    },
    refresh: read,
  };
}
