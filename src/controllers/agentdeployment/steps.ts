/**
 * The AgentDeployment reconcile as ordered steps (DEVELOPMENT.md, "How a reconcile decides"): finalize
 * (a deleted object), decide (the program of reconcile/agentdeployment/: gather, the chain of gates, and
 * the act on its verdict, act.ts), then revision following and verification. Conditions, events for
 * condition changes and the status write happen after the last step, in the shell.
 */

import { Annotation, EventReason } from '../../api/names.ts';
import { credentialsPolicy } from '../../controlplane/resolve-credentials.ts';
import { type Deployment, REVISION_SUCCEEDED } from '../../controlplane/schemas.ts';
import { deletionCredentials } from '../../reconcile/agentdeployment/deletion-credentials.ts';
import type { AgentDeploymentFacts } from '../../reconcile/agentdeployment/facts.ts';
import { defaultCredentialsRefused } from '../../reconcile/agentdeployment/gates/default-credentials-scope.ts';
import type { Gate, GateName } from '../../reconcile/agentdeployment/verdict.ts';
import { deploymentNameOf } from '../../reconcile/claims.ts';
import { recordObserved } from '../../reconcile/status.ts';
import { pendingRedeployRequest, pollIntervalOf } from '../../runtime/annotations.ts';
import { type Outcome, Stall, Wait } from '../../runtime/outcome.ts';
import type { Step } from '../../runtime/reconcile-shell.ts';
import { decideStep, passExternal } from './act.ts';
import { finalizeStep } from './finalize.ts';
import { decideFollow, type FollowInput, progressDeadlineOf, retryPolicyOf } from './follow.ts';
import { controllerPort, passClient, passFacts } from './gather.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from './types.ts';

type AgdStep = Step<AgentDeploymentPass>;

const progressing = (message: string): Outcome => ({ kind: 'progressing', reason: 'Progressing', message });

/** `gates`: the chain to run (a test may take one out; the default is the whole chain). */
export function agentDeploymentSteps(
  deps: AgentDeploymentDeps,
  gates?: readonly (readonly [GateName, Gate])[],
): readonly AgdStep[] {
  const policy = credentialsPolicy(deps.defaultCredentials, deps.allowedControlPlanes);
  const factsOf = new WeakMap<AgentDeploymentPass, AgentDeploymentFacts>();
  const facts = (pass: AgentDeploymentPass) => {
    let made = factsOf.get(pass);
    if (!made) {
      made = passFacts(deps, pass, policy);
      factsOf.set(pass, made);
    }
    return made;
  };

  /** Deleted: the deletion decision (reconcile/deletion.ts), read and acted on in finalize.ts. */
  const finalize = finalizeStep(
    deps,
    {
      external: (pass) => passExternal(deps, pass, facts(pass)),
      async credentials(pass) {
        const f = facts(pass);
        const read = await deletionCredentials(f, controllerPort(deps, pass));
        if ('kind' in read) {
          if (read.kind === 'stall') throw new Stall(read.reason, read.message);
          throw new Wait(read.reason, read.message, read.retryAfterMs);
        }
        passClient(deps, pass, f);
        return read;
      },
      defaultCredentialsRefused: (pass) => defaultCredentialsRefused(facts(pass)),
    },
    (pass) => deploymentNameOf({ ...pass.obj, spec: pass.spec }),
  );

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
        deployment = await passExternal(deps, pass, facts(pass)).refresh(deployment.id);
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
        const read = await passExternal(deps, pass, facts(pass)).revision(deployment.id, revisionId);
        revision = {
          id: revisionId,
          status: read.status,
          createdAt: read.created_at,
          updatedAt: read.updated_at,
        };
        if (REVISION_SUCCEEDED.has(read.status) && deployment.active_revision_id !== revisionId) {
          // The snapshot predates the deploy: read the deployment once so status shows what now runs.
          deployment = await passExternal(deps, pass, facts(pass)).refresh(deployment.id);
          recordObserved(status, deployment);
        }
      }
      status.latestRevisionId = revisionId;
      status.revisionStatus = revision.status;
      const request = pendingRedeployRequest(pass.obj, status);
      const decision = decideFollow({
        deployment,
        revision,
        progressDeadlineMs: progressDeadlineOf(pass.spec),
        retry: retryPolicyOf(pass.spec),
        retries: status.retries ?? 0,
        redeployRequest: request,
        minPollMs: deps.revisionPollMs,
        nowMs: deps.now().getTime(),
      });
      if (decision.action === 'redeploy') {
        const redeployed = await passExternal(deps, pass, facts(pass)).redeploy(
          deployment.id,
          revisionId,
          decision.why,
        );
        if (decision.trigger === 'retry') status.retries = (status.retries ?? 0) + 1;
        if (decision.requestHandled) status.lastHandledRedeployAt = request;
        recordObserved(status, redeployed);
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
        case 'stall':
          throw new Stall(decision.reason, decision.message);
        case 'progressing':
          pass.requeueAfterMs = decision.requeueAfterMs;
          return progressing(decision.message);
        case 'ready':
          if (pass.spec.verification) return undefined;
          return { kind: 'ready', reason: 'Succeeded', message: decision.message };
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
      return step.view.outcome;
    },
  };

  return [finalize, decideStep(deps, facts, gates), followRevision, verify];
}
