/**
 * The AgentDeployment reconcile as ordered steps (DEVELOPMENT.md, "How a reconcile decides"). Each step reads
 * the pass, acts through the external-resource contract, and either lets the next step run or ends the
 * pass with an outcome. Conditions, events for condition changes and the status write happen after the
 * last step, in the shell.
 */

import { Annotation, EventReason, FINALIZER, STICKY_STALL_REASONS } from '../../api/names.ts';
import { type Credentials, credentialsKey } from '../../controlplane/credentials.ts';
import { credentialsPolicy, resolveCredentials } from '../../controlplane/resolve-credentials.ts';
import { type Deployment, REVISION_SUCCEEDED } from '../../controlplane/schemas.ts';
import { tenantDigest } from '../../controlplane/tenant.ts';
import {
  type ClaimConflict,
  claimConflict,
  claimOf,
  createContest,
  deploymentNameOf,
} from '../../reconcile/claims.ts';
import { decide } from '../../reconcile/decide.ts';
import { desiredDeployment } from '../../reconcile/desired.ts';
import { isObserveOnly } from '../../reconcile/management.ts';
import {
  checkPollInterval,
  pausedOutcome,
  pendingRedeployRequest,
  pollIntervalOf,
  takeReconcileRequest,
} from '../../runtime/annotations.ts';
import { findCondition } from '../../runtime/conditions.ts';
import { type Outcome, Stall, Wait } from '../../runtime/outcome.ts';
import type { Step } from '../../runtime/reconcile-shell.ts';
import { SecretBudgetError, type SecretData, secretDataBytes } from '../../runtime/secret-cache.ts';
import { referencedSecretNames } from '../../translate/secrets.ts';
import { externalDeployment } from './external.ts';
import { finalizeStep } from './finalize.ts';
import { decideFollow, type FollowInput, progressDeadlineOf, retryPolicyOf } from './follow.ts';
import { observeOnlyStep } from './observe-only.ts';
import {
  afterFailure,
  afterVerification,
  fastRevert,
  holdsWrites,
  isRollbackRevision,
  noteRevision,
  observeRevision,
  rolledBackOutcome,
} from './remediate.ts';
import { recordApplied, recordObserved } from './status.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from './types.ts';

type AgdStep = Step<AgentDeploymentPass>;

const progressing = (message: string): Outcome => ({ kind: 'progressing', reason: 'Progressing', message });

const hasFinalizer = (pass: AgentDeploymentPass) =>
  pass.obj.metadata.finalizers?.includes(FINALIZER) ?? false;

/**
 * The most bytes of Secret values one object may reference, all its Secrets together (credentials
 * included): twice Kubernetes' largest Secret, far above what a deployment's environment needs.
 */
export const OBJECT_SECRET_BUDGET = 2 * 1024 * 1024;

/**
 * Reads the Secrets the object references (credentials included) into the pass's lookup, within the
 * object's budget and its namespace's (secret-cache.ts): past either, Stalled BudgetExceeded.
 */
async function readSecrets(deps: AgentDeploymentDeps, pass: AgentDeploymentPass): Promise<void> {
  const namespace = pass.obj.metadata.namespace ?? '';
  const names = referencedSecretNames(pass.spec);
  let data: (SecretData | undefined)[];
  try {
    data = await Promise.all(names.map((name) => deps.readSecret(namespace, name)));
  } catch (err) {
    if (err instanceof SecretBudgetError) throw new Stall('BudgetExceeded', err.message);
    throw err;
  }
  const bytes = data.reduce((sum, d) => sum + secretDataBytes(d), 0);
  if (bytes > OBJECT_SECRET_BUDGET) {
    throw new Stall(
      'BudgetExceeded',
      `the Secrets this object references hold ${bytes} bytes of values, more than the ${OBJECT_SECRET_BUDGET} bytes one object may reference; reference fewer or smaller Secrets`,
    );
  }
  const byName = new Map(names.map((name, i) => [name, data[i]]));
  pass.lookup = (name) => byName.get(name);
}

export function agentDeploymentSteps(deps: AgentDeploymentDeps): readonly AgdStep[] {
  const external = (pass: AgentDeploymentPass) => {
    if (!pass.client) throw new Error('external resource used before credentials were resolved');
    return externalDeployment(deps, pass, pass.client);
  };
  const policy = credentialsPolicy(deps.defaultCredentials, deps.allowedControlPlanes);
  const credentialsOf = (pass: AgentDeploymentPass) =>
    resolveCredentials(pass.spec.credentialsSecretRef, pass.lookup, policy);
  const useCredentials = (pass: AgentDeploymentPass, credentials: Credentials) => {
    pass.credentials = credentials;
    pass.tenant = tenantDigest(credentials);
    pass.identity = credentialsKey(credentials);
    // Credentials from the namespace's own Secret count against its identities (pools.ts).
    const from = pass.spec.credentialsSecretRef ? (pass.obj.metadata.namespace ?? '') : undefined;
    pass.client = deps.controlPlane(credentials, pass.deadline, from);
  };
  /** Another object's claim that wins over this object's (see claims.ts), if any. */
  const conflictOf = (
    pass: AgentDeploymentPass,
    judge: typeof claimConflict = claimConflict,
  ): ClaimConflict | undefined => {
    const self = claimOf({ ...pass.obj, spec: pass.spec, status: pass.status }, pass.tenant);
    if (!self.tenant || !pass.identity) return undefined;
    const ids = [self.deploymentId, self.adoptId].filter((id): id is string => id !== undefined);
    const tenanted = pass.credentials?.tenantId !== undefined;
    return judge(
      self,
      deps.claims({ tenant: self.tenant, identity: pass.identity, tenanted, name: self.name, ids }),
    );
  };

  const namespaceOf = (pass: AgentDeploymentPass) => pass.obj.metadata.namespace ?? '';
  /** Why this object may not use the default credentials; undefined when it may (or names its own). */
  const defaultCredentialsRefused = (pass: AgentDeploymentPass): string | undefined => {
    if (pass.spec.credentialsSecretRef) return undefined;
    const decision = deps.defaultCredentialsScope(namespaceOf(pass));
    if (decision.allowed) return undefined;
    const adopt = pass.obj.metadata.annotations?.[Annotation.AdoptDeploymentId];
    return adopt
      ? `${decision.message}; the ${Annotation.AdoptDeploymentId} annotation is not acted on either`
      : decision.message;
  };

  /** Deleted: the deletion decision (reconcile/deletion.ts), read and acted on in finalize.ts. */
  const finalize = finalizeStep(
    deps,
    {
      external,
      async resolveCredentials(pass) {
        await readSecrets(deps, pass);
        useCredentials(pass, credentialsOf(pass));
      },
      conflictOf: (pass) => conflictOf(pass),
      defaultCredentialsRefused,
    },
    (pass) => deploymentNameOf({ ...pass.obj, spec: pass.spec }),
  );

  /** Paused: say so and stop. An annotation out of its bounds needs a person. */
  const paused: AgdStep = {
    name: 'paused',
    run(pass) {
      const outcome = pausedOutcome(pass.obj);
      if (!outcome) checkPollInterval(pass.obj);
      return outcome;
    },
  };

  /** A stall that needs a person holds until the object changes or a reconcile is requested. */
  const holdWhileStalled: AgdStep = {
    name: 'holdWhileStalled',
    run(pass) {
      const requested = takeReconcileRequest(pass.obj, pass.status);
      pass.reconcileRequested = requested;
      const stalled = findCondition(pass.status.conditions, 'Stalled');
      if (
        stalled &&
        stalled.observedGeneration === pass.generation &&
        STICKY_STALL_REASONS.has(stalled.reason) &&
        !requested
      ) {
        return { kind: 'stalled', reason: stalled.reason as Stall['reason'], message: stalled.message };
      }
      return undefined;
    },
  };

  /**
   * An object in a namespace the administrator did not allow to use the default credentials, naming no
   * credentials of its own, stops here: before its finalizer, so it leaves freely, and before any call.
   */
  const scopeDefaultCredentials: AgdStep = {
    name: 'scopeDefaultCredentials',
    run(pass) {
      const refused = defaultCredentialsRefused(pass);
      if (!refused) return undefined;
      // Allowed before? Then the batched poll read its deployment with these credentials: no more.
      deps.observer.untrack(pass.key);
      throw new Stall('DefaultCredentialsNotAllowed', refused);
    },
  };

  /**
   * The finalizer goes on before the first create, so nothing is created that deletion could miss. An
   * observe-only object deletes nothing, so it needs none (one it still has is removed on deletion).
   */
  const ensureFinalizer: AgdStep = {
    name: 'ensureFinalizer',
    async run(pass) {
      if (!hasFinalizer(pass) && !isObserveOnly(pass.spec)) await deps.addFinalizer(pass.obj, pass.signal);
      return undefined;
    },
  };

  /** Credentials and secrets; anything missing is waiting, not an error. */
  const resolve: AgdStep = {
    name: 'resolve',
    async run(pass) {
      await readSecrets(deps, pass);
      const ref = pass.spec.credentialsSecretRef;
      // The credentials must outlive this object (a namespace deletion removes both at once).
      if (ref && pass.lookup(ref.name))
        await deps.protectCredentials(namespaceOf(pass), ref.name, pass.signal);
      await deps.releaseCredentials(namespaceOf(pass), undefined, pass.signal);
      useCredentials(pass, credentialsOf(pass));
      const desired = desiredDeployment({ ...pass.obj, spec: pass.spec }, pass.lookup, deps.digestKey);
      if (!desired.ok) throw new Wait('WaitingForSecret', desired.message);
      pass.desired = desired.request;
      pass.digests = desired.digests;
      return undefined;
    },
  };

  /**
   * The ownership gate, before anything is sent: the deployment id this object records or adopts, and its
   * deployment name, must not be claimed by another object of the same tenant (claims.ts: the tie-break).
   */
  const own: AgdStep = {
    name: 'own',
    run(pass) {
      const conflict = conflictOf(pass);
      if (conflict) throw new Stall(conflict.reason, conflict.message);
      return undefined;
    },
  };

  /**
   * Find the deployment this object owns (recorded id, accepted adoption, or its own create whose answer
   * was lost); a live deployment of its name it does not own stops the pass (NameConflict).
   */
  const observe: AgdStep = {
    name: 'observe',
    async run(pass) {
      const id = pass.status.deploymentId;
      const snapshot = id && pass.identity ? deps.observer.fresh(pass.identity, id) : undefined;
      pass.observed = await external(pass).observe();
      pass.observedSnapshot = snapshot !== undefined && pass.observed === snapshot;
      if (pass.observed && pass.credentials) {
        deps.observer.track(pass.key, pass.credentials, pass.observed.id);
        recordObserved(pass.status, pass.observed);
      }
      return undefined;
    },
  };

  /** Create what is missing; patch exactly what drifted; stall on what cannot change. */
  const converge: AgdStep = {
    name: 'converge',
    async run(pass) {
      const { desired, digests, credentials } = pass;
      if (!desired || !digests || !credentials) throw new Error('converge ran before resolve');
      // After a rollback for this spec, the failed configuration is not sent again (remediation.ts).
      if (pass.observed && holdsWrites(pass)) return undefined;
      const decision = decide({ desired, observed: pass.observed, digests, applied: pass.status });
      if ((decision.action === 'none' || decision.action === 'patch') && decision.secretsTakenAsCurrent) {
        pass.events.push({
          type: 'Normal',
          reason: EventReason.SecretsTakenAsCurrent,
          message: `the platform does not reveal secret values: took ${desired.secrets.map((s) => s.name).join(', ')} as current instead of redeploying; the next change to a secret is sent`,
        });
      }
      switch (decision.action) {
        case 'create': {
          // The mark made durable, then the contest: objects that got past the gate together (neither
          // saw the other yet) are all visible once the mark's own write is, and the older creates.
          const persist = async () => {
            const status = JSON.parse(JSON.stringify(pass.status));
            pass.written = await deps.writeStatus(pass.written ?? pass.obj, status, pass.signal);
            if (!(await deps.cacheShows(pass.written, pass.signal))) {
              pass.log.warn(
                'the informer did not show the create mark in time: contesting the name on what it holds',
              );
            }
            const contest = conflictOf(pass, createContest);
            if (contest) throw new Stall(contest.reason, contest.message);
          };
          const created = await external(pass).create(decision.request, persist);
          // Nothing else before the shell's status write: it records the id the moment the POST answered.
          deps.observer.track(pass.key, credentials, created.id);
          recordApplied(pass.status, created, digests);
          noteRevision(deps, pass, created, 'Spec');
          return progressing(
            `deployment ${created.id} created; following revision ${created.latest_revision_id}`,
          );
        }
        case 'stall':
          throw new Stall(decision.reason, decision.message);
        case 'wait':
          return { kind: 'waiting', reason: decision.reason, message: decision.message };
        case 'patch': {
          const observed = pass.observed as Deployment;
          const reverted = await fastRevert(deps, pass, external(pass), observed, decision);
          if (reverted) {
            recordApplied(pass.status, reverted, digests);
            return progressing(`reverted by a redeploy; following revision ${reverted.latest_revision_id}`);
          }
          const patched = await external(pass).update(observed.id, decision.patch, decision.changed);
          recordApplied(pass.status, patched, digests);
          if (decision.createsRevision) {
            noteRevision(deps, pass, patched, 'Spec');
            return progressing(
              `patched ${decision.changed.join(', ')}; following revision ${patched.latest_revision_id}`,
            );
          }
          pass.observed = patched;
          return undefined;
        }
        case 'none':
          // Nothing to send: what the control plane has is what was applied.
          pass.status.secretsDigest = digests.secrets;
          pass.status.appliedConfigDigest = digests.unechoed;
          return undefined;
      }
    },
  };

  /**
   * Follow the latest revision to the end (follow.ts decides): redeploy a failed one when asked
   * (annotation) or allowed (spec.retry), stall a failure or a revision past its deadline, and call the
   * object Ready only when the revision is DEPLOYED and the deployment READY.
   */
  const followRevision: AgdStep = {
    name: 'followRevision',
    async run(pass) {
      const { status } = pass;
      let deployment = pass.observed;
      if (!deployment) throw new Error('followRevision ran without a deployment');
      if (pass.observedSnapshot && isFirstLook(status, deployment)) {
        // The snapshot is what the create or PATCH answered (or a listing from before): the deployment
        // read now tells whether the revision runs (active) and all status shows, in one call where the
        // revision and then the deployment take two.
        deployment = await external(pass).refresh(deployment.id);
        recordObserved(status, deployment);
      }
      const revisionId = deployment.latest_revision_id;
      if (!revisionId) return progressing(`deployment ${deployment.id} has no revision yet`);
      const known = status.latestRevisionId === revisionId ? status.revisionStatus : undefined;
      let revision: FollowInput['revision'];
      // A revision that ran to the end is not read again; any other is (its times drive deadline and
      // retry), unless the deployment shows it active: the one deployed.
      if (known && REVISION_SUCCEEDED.has(known)) revision = { id: revisionId, status: known };
      else if (deployment.active_revision_id === revisionId)
        revision = { id: revisionId, status: 'DEPLOYED' };
      else {
        const read = await external(pass).revision(deployment.id, revisionId);
        revision = {
          id: revisionId,
          status: read.status,
          createdAt: read.created_at,
          updatedAt: read.updated_at,
        };
        if (REVISION_SUCCEEDED.has(read.status) && deployment.active_revision_id !== revisionId) {
          // The snapshot predates the deploy: read the deployment once so status shows what now runs.
          deployment = await external(pass).refresh(deployment.id);
          recordObserved(status, deployment);
        }
      }
      status.latestRevisionId = revisionId;
      status.revisionStatus = revision.status;
      observeRevision(deps, pass, deployment, revision.status);
      const request = pendingRedeployRequest(pass.obj, status);
      const decision = decideFollow({
        deployment,
        revision,
        progressDeadlineMs: progressDeadlineOf(pass.spec),
        // Never a retry after a rollback.
        retry: isRollbackRevision(pass, revisionId) ? undefined : retryPolicyOf(pass.spec),
        retries: status.retries ?? 0,
        redeployRequest: request,
        minPollMs: deps.revisionPollMs,
        nowMs: deps.now().getTime(),
      });
      if (decision.action === 'redeploy') {
        const redeployed = await external(pass).redeploy(deployment.id, revisionId, decision.why);
        if (decision.trigger === 'retry') status.retries = (status.retries ?? 0) + 1;
        if (decision.requestHandled) status.lastHandledRedeployAt = request;
        recordObserved(status, redeployed);
        noteRevision(deps, pass, redeployed, decision.trigger === 'retry' ? 'Retry' : 'Request', revisionId);
        return progressing(
          `revision ${revisionId} redeployed (${decision.why}); following revision ${redeployed.latest_revision_id}`,
        );
      }
      if (decision.requestHandled) {
        status.lastHandledRedeployAt = request;
        pass.events.push({
          type: 'Normal',
          reason: EventReason.RedeploySkipped,
          message: `annotation ${Annotation.RedeployRequestedAt}=${request}: revision ${revisionId} is ${revision.status}, nothing to redeploy`,
        });
      }
      switch (decision.action) {
        case 'stall': {
          if (decision.reason !== 'RevisionFailed') throw new Stall(decision.reason, decision.message);
          const failure = { id: revisionId, failure: 'deploy', status: revision.status } as const;
          return afterFailure(deps, pass, external(pass), deployment, failure, decision.message);
        }
        case 'progressing':
          pass.requeueAfterMs = decision.requeueAfterMs;
          return progressing(decision.message);
        case 'ready':
          if (pass.spec.verification) return undefined;
          return (
            rolledBackOutcome(pass, false) ?? {
              kind: 'ready',
              reason: 'Succeeded',
              message: decision.message,
            }
          );
      }
    },
  };

  /** The latest revision was never looked at, and the deployment as known does not show it active. */
  const isFirstLook = (status: AgentDeploymentPass['status'], deployment: Deployment): boolean =>
    !!deployment.latest_revision_id &&
    deployment.active_revision_id !== deployment.latest_revision_id &&
    !(status.latestRevisionId === deployment.latest_revision_id && status.revisionStatus);

  /** The revision runs: prove it answers before calling the object Ready. */
  const verify: AgdStep = {
    name: 'verify',
    async run(pass) {
      const { obj, spec, status } = pass;
      if (!spec.verification || !pass.credentials || !status.latestRevisionId) {
        throw new Error('verify ran without verification, credentials or a revision');
      }
      const step = await deps.verifier.step({
        key: pass.key,
        namespace: obj.metadata.namespace ?? '',
        name: obj.metadata.name,
        uid: obj.metadata.uid ?? obj.metadata.name,
        spec: spec.verification,
        revisionId: status.latestRevisionId,
        url: status.url,
        credentials: pass.credentials,
        credentialsOwner: spec.credentialsSecretRef ? 'namespace' : 'controller',
        record: status.verification,
        log: pass.log,
        signal: pass.deadline,
      });
      status.verification = step.record;
      pass.verified = step.view.verified;
      const poll = pollIntervalOf(pass.obj, deps.pollIntervalMs);
      pass.requeueAfterMs = Math.min(poll, step.requeueAfterMs ?? poll);
      return afterVerification(deps, pass, external(pass), step);
    },
  };

  return [
    finalize,
    paused,
    holdWhileStalled,
    scopeDefaultCredentials,
    ensureFinalizer,
    resolve,
    own,
    observeOnlyStep(deps, external),
    observe,
    converge,
    followRevision,
    verify,
  ];
}
