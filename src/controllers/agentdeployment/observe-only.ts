/**
 * The observe-only gate (spec.managementPolicies ["Observe"], reconcile/management.ts): one step in place
 * of observe, converge, followRevision and verify for such an object. It finds the deployment (a recorded
 * id, the adopt annotation, or, owning nothing, the deployment of its name), reports its status, revision
 * and URL, and what differs from the spec (status.drift, the Drifted condition), and sends nothing: no
 * create, patch, redeploy or delete; no smoke run either (it would write a thread on the agent server).
 * Only an adoption asked for by annotation records ownership, so switching to full management later
 * patches nothing when there is no drift (the digests of what the platform has are recorded while in
 * sync), and a deployment merely observed by name still needs that annotation to be managed.
 */
import { ConditionType, Reason } from '../../api/names.ts';
import { type Deployment, REVISION_SUCCEEDED } from '../../controlplane/schemas.ts';
import { decide } from '../../reconcile/decide.ts';
import { driftMessage, isObserveOnly, observeVerdict } from '../../reconcile/management.ts';
import { removeCondition, setCondition } from '../../runtime/conditions.ts';
import { type Outcome, Stall, Wait } from '../../runtime/outcome.ts';
import type { Step } from '../../runtime/reconcile-shell.ts';
import type { ExternalDeployment } from './external.ts';
import { decideFollow, progressDeadlineOf } from './follow.ts';
import { observeRevision, wouldRemediate } from './remediate.ts';
import { recordObserved } from './status.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass, DeploymentClient } from './types.ts';

/**
 * The deployment an observe-only object watches, through the one ownership verdict there is
 * (reconcile/ownership.ts): recorded or adopted ones are owned, one of its name is only observed.
 */
async function find(
  pass: AgentDeploymentPass,
  external: () => ExternalDeployment,
): Promise<{ deployment: Deployment | undefined; owned: boolean }> {
  const deployment = await external().observe();
  return { deployment, owned: !!pass.status.deploymentId };
}

/** The latest revision's verdict, read-only: never a redeploy (no request, no retry policy passed). */
async function follow(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  client: DeploymentClient,
  deployment: Deployment,
): Promise<Outcome> {
  const { status } = pass;
  const revisionId = deployment.latest_revision_id;
  if (!revisionId)
    return {
      kind: 'progressing',
      reason: 'Progressing',
      message: `deployment ${deployment.id} has no revision yet`,
    };
  const known = status.latestRevisionId === revisionId ? status.revisionStatus : undefined;
  const revision =
    known && REVISION_SUCCEEDED.has(known)
      ? { id: revisionId, status: known }
      : await client.getRevision(deployment.id, revisionId).then((r) => ({
          id: r.id,
          status: r.status,
          createdAt: r.created_at,
          updatedAt: r.updated_at,
        }));
  status.latestRevisionId = revisionId;
  status.revisionStatus = revision.status;
  observeRevision(deps, pass, deployment, revision.status);
  const verdict = decideFollow({
    deployment,
    revision,
    progressDeadlineMs: progressDeadlineOf(pass.spec),
    retry: undefined,
    retries: 0,
    redeployRequest: undefined,
    minPollMs: deps.revisionPollMs,
    nowMs: deps.now().getTime(),
  });
  switch (verdict.action) {
    case 'stall': {
      const failure = { id: revisionId, failure: 'deploy', status: revision.status } as const;
      const would = verdict.reason === 'RevisionFailed' ? wouldRemediate(pass, deployment, failure) : '';
      throw new Stall(verdict.reason, `${verdict.message}${would}`);
    }
    case 'progressing':
      pass.requeueAfterMs = verdict.requeueAfterMs;
      return { kind: 'progressing', reason: 'Progressing', message: verdict.message };
    case 'ready':
      return { kind: 'ready', reason: 'Succeeded', message: `observe-only: ${verdict.message}` };
    case 'redeploy':
      throw new Error('a read-only follow asked for a redeploy');
  }
}

export function observeOnlyStep(
  deps: AgentDeploymentDeps,
  external: (pass: AgentDeploymentPass) => ExternalDeployment,
): Step<AgentDeploymentPass> {
  return {
    name: 'observeOnly',
    async run(pass) {
      if (!isObserveOnly(pass.spec)) {
        delete pass.status.drift;
        return undefined;
      }
      const { client, credentials, desired, digests, status } = pass;
      if (!client || !credentials || !desired || !digests) throw new Error('observeOnly ran before resolve');
      const { deployment, owned } = await find(pass, () => external(pass));
      const verdict = observeVerdict(decide({ desired, observed: deployment, digests, applied: status }));
      if (verdict.kind === 'notFound' || !deployment) {
        delete status.drift;
        const which = status.deploymentId ?? `named ${desired.name}`;
        throw new Wait(
          Reason.NotFound,
          `observe-only: no deployment ${which} on the control plane; nothing is created`,
        );
      }
      deps.observer.track(pass.key, credentials, deployment.id);
      recordObserved(status, deployment);
      // Observed by name only: shown, not owned (ownership takes the adopt annotation).
      if (!owned) delete status.deploymentId;
      pass.observed = deployment;
      if (verdict.kind === 'deleting') {
        delete status.drift;
        return { kind: 'waiting', reason: Reason.Deleting, message: verdict.message };
      }
      status.drift = verdict.drift;
      const outcome = await follow(deps, pass, client, deployment);
      if (verdict.drift.length > 0)
        throw new Stall(Reason.DriftDetected, driftMessage(deployment.id, verdict.drift));
      // What the platform has is what the spec says: recorded as applied, as a full pass would.
      status.secretsDigest = digests.secrets;
      status.appliedConfigDigest = digests.unechoed;
      return outcome;
    },
  };
}

/** The Drifted condition of an observe-only object; gone under full management. */
export function summarizeDrift(pass: AgentDeploymentPass): void {
  const { status } = pass;
  const conditions = status.conditions ?? [];
  if (status.drift === undefined) {
    status.conditions = removeCondition(conditions, ConditionType.Drifted);
    return;
  }
  const id = pass.observed?.id ?? status.deploymentId ?? '(unknown)';
  status.conditions = setCondition(
    conditions,
    status.drift.length > 0
      ? {
          type: ConditionType.Drifted,
          status: 'True',
          observedGeneration: pass.generation,
          reason: Reason.DriftDetected,
          message: driftMessage(id, status.drift),
        }
      : {
          type: ConditionType.Drifted,
          status: 'False',
          observedGeneration: pass.generation,
          reason: Reason.InSync,
          message: `observe-only: deployment ${id} matches the spec`,
        },
    pass.decidedAt,
  );
}
