/**
 * Observe-only (spec.managementPolicies ["Observe"]): the chain's observeOnly gate
 * (reconcile/agentdeployment/gates/observe-only.ts) found the deployment (a recorded id, the adopt
 * annotation, or, owning nothing, the deployment of its name); this reports its status, revision and URL,
 * and what differs from the spec (status.drift, the Drifted condition), and sends nothing: no create,
 * patch, redeploy or delete; no smoke run either (it would write a thread on the agent server).
 * Only an adoption asked for by annotation records ownership, so switching to full management later
 * patches nothing when there is no drift (the digests of what the platform has are recorded while in
 * sync), and a deployment merely observed by name still needs that annotation to be managed.
 */
import { ConditionType, Reason } from '../../api/names.ts';
import { type Deployment, REVISION_SUCCEEDED } from '../../controlplane/schemas.ts';
import type { FinalVerdict } from '../../reconcile/agentdeployment/verdict.ts';
import { driftMessage } from '../../reconcile/management.ts';
import { removeCondition, setCondition } from '../../runtime/conditions.ts';
import { type Outcome, Stall } from '../../runtime/outcome.ts';
import { decideFollow, progressDeadlineOf } from './follow.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass, DeploymentClient } from './types.ts';

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
    case 'stall':
      throw new Stall(verdict.reason, verdict.message);
    case 'progressing':
      pass.requeueAfterMs = verdict.requeueAfterMs;
      return { kind: 'progressing', reason: 'Progressing', message: verdict.message };
    case 'ready':
      return { kind: 'ready', reason: 'Succeeded', message: `observe-only: ${verdict.message}` };
    case 'redeploy':
      throw new Error('a read-only follow asked for a redeploy');
  }
}

/**
 * Acts on the chain's `observed` verdict: reports the deployment's drift (status.drift, the Drifted
 * condition) and follows its revision read-only; drift is Stalled DriftDetected, nothing is sent.
 */
export async function observeOnlyOutcome(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  verdict: FinalVerdict & { kind: 'observed' },
): Promise<Outcome> {
  const { client, status } = pass;
  if (!client) throw new Error('an observe-only verdict before the credentials resolved');
  const { deployment, drift, digests } = verdict;
  status.drift = drift;
  const outcome = await follow(deps, pass, client, deployment);
  if (drift.length > 0) throw new Stall(Reason.DriftDetected, driftMessage(deployment.id, drift));
  // What the platform has is what the spec says: recorded as applied, as a full pass would.
  status.secretsDigest = digests.secrets;
  status.appliedConfigDigest = digests.unechoed;
  return outcome;
}

/** The Drifted condition of an observe-only object; gone under full management. */
export function summarizeDrift(pass: AgentDeploymentPass): void {
  const { status } = pass;
  const conditions = status.conditions ?? [];
  if (status.drift === undefined) {
    status.conditions = removeCondition(conditions, ConditionType.Drifted);
    return;
  }
  const id = pass.deployment?.id ?? status.deploymentId ?? '(unknown)';
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
