/**
 * The AgentDeployment's external resource, after crossplane-runtime's managed-resource contract: the
 * writes (create, update, redeploy, delete) and the reads deletion and revision following ask for. How
 * the owned deployment is found is the program's (reconcile/agentdeployment/, gathered in gather.ts).
 * It keeps the observer's bookkeeping and the ownership record in status (id, credentials digest,
 * pending create). Each action records the event that says what it did (deletion's outcome events are
 * the finalize step's). Only create makes status durable mid-pass, through the step's `persist`; none
 * writes conditions.
 */
import { EventReason, type Reason } from '../../../api/names.ts';
import { type Credentials, credentialsKey } from '../../../controlplane/credentials.ts';
import { lookupName, readById } from '../../../controlplane/deployment-reads.ts';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  ValidationFailedError,
} from '../../../controlplane/errors.ts';
import { isDeleting } from '../../../controlplane/progress.ts';
import type {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  Revision,
} from '../../../controlplane/schemas.ts';
import { AbortScope } from '../../../lib/abort-scope.ts';
import { deploymentNameOf } from '../../../reconcile/agentdeployment/claims.ts';
import { deletedElsewhere } from '../../../reconcile/agentdeployment/drift-decision.ts';
import {
  type NameLookup,
  nameVerdict,
  type OwnershipFacts,
  type OwnershipVerdict,
  type ReadById,
} from '../../../reconcile/agentdeployment/ownership.ts';
import { recordOwned } from '../../../reconcile/agentdeployment/status.ts';
import { Stall, Wait } from '../../../runtime/outcome.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass, DeploymentClient } from '../types.ts';

export interface ExternalDeployment {
  /** The credentials its calls are made with. */
  readonly credentials: Credentials;
  create(request: DeploymentCreateRequest, persist: () => Promise<void>): Promise<Deployment>;
  update(
    deploymentId: string,
    patch: DeploymentPatchRequest,
    changed: readonly string[],
  ): Promise<Deployment>;
  /**
   * What deleting reads and sends (the deletion chain, reconcile/agentdeployment/deletion/, decides which, and when):
   * the deployments of the object's name, one deployment by id, and the DELETE of one id (a 404 answer
   * means it is gone already).
   */
  lookup(): Promise<NameLookup>;
  find(deploymentId: string): Promise<ReadById>;
  delete(deploymentId: string, options: { deleteTracingProject: boolean }): Promise<void>;
  revision(deploymentId: string, revisionId: string): Promise<Revision>;
  /** Starts a new revision from an existing one's configuration; `why` goes in the event. */
  redeploy(deploymentId: string, revisionId: string, why: string): Promise<Deployment>;
  /** A first-hand read, when a snapshot is known to be older than what happened. */
  refresh(deploymentId: string): Promise<Deployment>;
}

/**
 * `resolved`: the credentials the facts resolved and the tenant they reach. The status it records in is
 * the pass's at the time of each call (the act stage's).
 */
export function externalDeployment(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  client: DeploymentClient,
  resolved: { credentials: Credentials; tenant: string | undefined },
  ownershipFacts: () => OwnershipFacts,
): ExternalDeployment {
  const { observer } = deps;
  const { obj } = pass;
  const deploymentName = deploymentNameOf({ ...obj, spec: pass.spec });
  const { credentials, tenant } = resolved;
  const identity = credentialsKey(credentials);
  const note = (reason: EventReason | Reason, message: string, type: 'Normal' | 'Warning' = 'Normal') =>
    pass.events.push({ type, reason, message });

  /** What this pass saw first-hand, held as the object's snapshot if its namespace's budget has room. */
  const remember = (d: Deployment) => observer.remember(identity, d, pass.key);

  /**
   * A write to the platform, sent only behind the write fence (runtime/write-fence.ts) and abandoned
   * when this replica's hold on the key could end.
   */
  const fenced = async <T>(send: (writer: DeploymentClient) => Promise<T>): Promise<T> => {
    const ms = deps.writeFence?.(pass.key) ?? Number.POSITIVE_INFINITY;
    if (ms === Number.POSITIVE_INFINITY) return send(client);
    const scope = new AbortScope([pass.deadline], ms);
    try {
      const from = pass.spec.credentialsSecretRef ? (obj.metadata.namespace ?? '') : undefined;
      return await send(deps.controlPlane(credentials, scope.signal, from));
    } finally {
      scope.end();
    }
  };

  const read = async (id: string): Promise<Deployment> => {
    const current = await client.getDeployment(id);
    const overBudget = remember(current);
    if (overBudget) throw overBudget;
    return current;
  };

  const getIfExists = async (id: string): Promise<Deployment | undefined> => {
    const found = await readById(client, id);
    return found === 'missing' ? undefined : found;
  };

  /** This object owns `d` from now on: the id, and the tenant it lives in. */
  const own = (d: Deployment) => {
    recordOwned(pass.status, d.id, tenant);
    remember(d);
  };

  const lookup = () => lookupName(client, deploymentName);

  /** Acts on a final verdict: records what this object owns, or ends the pass with why not. */
  const act = (verdict: Exclude<OwnershipVerdict, { kind: 'read' } | { kind: 'forget' }>) => {
    switch (verdict.kind) {
      case 'owned': {
        const { deployment, how, message } = verdict;
        if (how === 'observed') return deployment; // watched by name, never recorded as owned
        if (how === 'recorded') {
          // A record from before digests were kept: the deployment answers, so these are its credentials.
          if (!pass.status.credentialsDigest && tenant) pass.status.credentialsDigest = tenant;
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

  return {
    credentials,
    async create(request, persist) {
      // Fenced before the mark too: a mark for a POST never sent would hold the name for nothing.
      deps.writeFence?.(pass.key);
      const fresh = !pass.status.createPendingSince;
      if (fresh) {
        pass.status.createPendingSince = deps.now().toISOString();
        try {
          await persist();
        } catch (err) {
          // Another object creates the name: nothing was sent, so the mark goes (the status write clears it).
          if (err instanceof Stall) delete pass.status.createPendingSince;
          throw err;
        }
      }
      let created: Deployment;
      try {
        created = await fenced((writer) => writer.createDeployment(request));
      } catch (err) {
        // Without an answer (timeout, dropped connection, 5xx) the mark stays: the next pass looks.
        if (!(err instanceof BadRequestError || err instanceof ValidationFailedError)) throw err;
        // Answered: this POST made nothing. A mark from an earlier, unanswered POST stays in force.
        const pendingSince = pass.status.createPendingSince;
        if (fresh) delete pass.status.createPendingSince;
        if (err instanceof BadRequestError) {
          // The name may have been taken since the lookup: by someone else, or by that earlier POST.
          const verdict = nameVerdict(await lookup(), {
            ...ownershipFacts(),
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
      const patched = await fenced((writer) => writer.patchDeployment(deploymentId, patch)).catch(
        (err: unknown) => waitIfDeleting(deploymentId, err),
      );
      remember(patched);
      const revision =
        patched.latest_revision_id !== pass.status.latestRevisionId
          ? `; new revision ${patched.latest_revision_id}`
          : '';
      note(EventReason.Patched, `patched ${changed.join(', ')}${revision}`);
      return patched;
    },

    lookup,
    async find(id) {
      return (await getIfExists(id)) ?? 'missing';
    },
    async delete(id, { deleteTracingProject }) {
      try {
        await fenced((writer) =>
          writer.deleteDeployment(id, { ...(deleteTracingProject ? { deleteTracingProject } : {}) }),
        );
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
      }
    },

    revision: (deploymentId, revisionId) => client.getRevision(deploymentId, revisionId),
    async redeploy(deploymentId, revisionId, why) {
      const redeployed = await fenced((writer) => writer.redeployRevision(deploymentId, revisionId)).catch(
        (err: unknown) => waitIfDeleting(deploymentId, err),
      );
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
