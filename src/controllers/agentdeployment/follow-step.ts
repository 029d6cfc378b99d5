/**
 * The followRevision step: follow the latest revision to the end (follow.ts decides). After the decide
 * step found the deployment (or sent what it decided), it reads the revision when it must and acts.
 */
import { Annotation, EventReason } from '../../api/names.ts';
import { type Deployment, REVISION_SUCCEEDED } from '../../controlplane/schemas.ts';
import { recordObserved } from '../../reconcile/status.ts';
import { pendingRedeployRequest } from '../../runtime/annotations.ts';
import { type Outcome, Stall } from '../../runtime/outcome.ts';
import type { Step } from '../../runtime/reconcile-shell.ts';
import type { ExternalDeployment } from './external.ts';
import { decideFollow, type FollowInput, progressDeadlineOf, retryPolicyOf } from './follow.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from './types.ts';

type AgdStep = Step<AgentDeploymentPass>;

const progressing = (message: string): Outcome => ({ kind: 'progressing', reason: 'Progressing', message });

/**
 * Follow the latest revision to the end (follow.ts decides): redeploy a failed one when asked
 * (annotation) or allowed (spec.retry), stall a failure or a revision past its deadline, and call the
 * object Ready only when the revision is DEPLOYED and the deployment READY.
 */
export function followRevisionStep(
  deps: AgentDeploymentDeps,
  external: (pass: AgentDeploymentPass) => ExternalDeployment,
): AgdStep {
  return {
    name: 'followRevision',
    async run(pass) {
      const { status } = pass;
      let deployment = pass.deployment;
      if (!deployment) throw new Error('followRevision ran without a deployment');
      if (pass.fromSnapshot && isFirstLook(status, deployment)) {
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
        const redeployed = await external(pass).redeploy(deployment.id, revisionId, decision.why);
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
}

/** The latest revision was never looked at, and the deployment as known does not show it active. */
const isFirstLook = (status: AgentDeploymentPass['status'], deployment: Deployment): boolean =>
  !!deployment.latest_revision_id &&
  deployment.active_revision_id !== deployment.latest_revision_id &&
  !(status.latestRevisionId === deployment.latest_revision_id && status.revisionStatus);
