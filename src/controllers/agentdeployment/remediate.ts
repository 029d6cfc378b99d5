/**
 * The thin hooks of safe rollouts in the steps (reconcile/history.ts and reconcile/remediation.ts decide):
 * the history fed with each revision a pass makes or sees, the rollback and the fast revert acted on, and
 * the rolled-back report. Nothing here decides what to do.
 */

import { Annotation, EventReason } from '../../api/names.ts';
import type { HistoryEntry, RevisionTrigger } from '../../api/remediation.ts';
import type { VerificationStatus } from '../../api/verification.ts';
import { NotFoundError } from '../../controlplane/errors.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import {
  addRevision,
  configOfRevision,
  desiredConfig,
  historyLimitOf,
  lastGood,
  markPruned,
  markRolledBack,
  observeStatus,
  observeVerification,
  type RevisionConfig,
} from '../../reconcile/history.ts';
import {
  currentRollback,
  decideRemediation,
  holdsAfterRollback,
  type LatestFailure,
  revertTarget,
  rolledBackMessage,
} from '../../reconcile/remediation.ts';
import { recordObserved } from '../../reconcile/status.ts';
import { pendingRedeployRequest } from '../../runtime/annotations.ts';
import { type Outcome, Stall } from '../../runtime/outcome.ts';
import type { VerificationView } from '../../verification/view.ts';
import type { ExternalDeployment } from './external.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from './types.ts';

const historyOf = (pass: AgentDeploymentPass): HistoryEntry[] => pass.status.history ?? [];

/** The secrets and resource spec the deployment runs with: the spec's, converge having applied them. */
const around = (pass: AgentDeploymentPass): RevisionConfig =>
  pass.desired && pass.digests ? desiredConfig(pass.desired, pass.digests.secrets) : {};

function setHistory(pass: AgentDeploymentPass, history: HistoryEntry[]): void {
  pass.status.history = history;
  const good = lastGood(history, !!pass.spec.verification);
  if (good) pass.status.lastGoodRevision = good;
  else delete pass.status.lastGoodRevision;
}

/**
 * A revision this pass made (create, PATCH, redeploy) or first sees: its source as the answer describes
 * the latest revision (the notes), with the secrets and resources around it.
 */
export function noteRevision(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  deployment: Deployment,
  trigger: RevisionTrigger,
  redeployOf?: string,
): void {
  const id = deployment.latest_revision_id;
  if (!id) return;
  const history = addRevision(
    historyOf(pass),
    {
      id,
      config: configOfRevision(deployment.source_revision_config, around(pass)),
      trigger,
      redeployOf,
      generation: pass.generation,
      at: deps.now().toISOString(),
    },
    { limit: historyLimitOf(pass.spec), verificationRequired: !!pass.spec.verification },
  );
  setHistory(pass, history);
}

/** The latest revision's status as followRevision read it; one never seen was made by someone else. */
export function observeRevision(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  deployment: Deployment,
  status: string,
): void {
  const id = deployment.latest_revision_id;
  if (!id) return;
  // The first revision an object records (an upgrade, an adoption) is the spec's; later ones the platform's.
  if (!historyOf(pass).some((e) => e.id === id))
    noteRevision(deps, pass, deployment, historyOf(pass).length === 0 ? 'Spec' : 'Platform');
  setHistory(pass, observeStatus(historyOf(pass), id, status, deps.now().toISOString()));
}

export function observeVerified(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  id: string,
  result: 'True' | 'False' | 'Unknown',
): void {
  if (result === 'Unknown') return;
  const verdict = result === 'True' ? 'Succeeded' : 'Failed';
  setHistory(pass, observeVerification(historyOf(pass), id, verdict, deps.now().toISOString()));
}

/** Never a retry of a rollback's revision (spec.retry stops where remediation took over). */
export const isRollbackRevision = (pass: AgentDeploymentPass, id: string): boolean =>
  currentRollback(historyOf(pass))?.entry.id === id;

/** After a rollback for this spec, nothing is sent until the spec changes or a person asks. */
export const holdsWrites = (pass: AgentDeploymentPass): boolean =>
  holdsAfterRollback(
    historyOf(pass),
    pass.generation,
    !!pass.reconcileRequested || pendingRedeployRequest(pass.obj, pass.status) !== undefined,
  );

/** RolledBack (Stalled: kstatus Failed, Argo CD Degraded) while the rollback made for this spec serves. */
export function rolledBackOutcome(pass: AgentDeploymentPass, verified: boolean): Outcome | undefined {
  const id = pass.status.latestRevisionId;
  if (!id || !isRollbackRevision(pass, id) || !holdsWrites(pass)) return undefined;
  const message = rolledBackMessage(historyOf(pass), verified);
  return message ? { kind: 'stalled', reason: 'RolledBack', message } : undefined;
}

/**
 * The latest revision failed past spec.retry: roll back (redeploy the last good revision), report a failed
 * rollback, or say why not (returned, for the caller's own message). Observe-only never gets here.
 */
async function remediate(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  external: ExternalDeployment,
  deployment: Deployment,
  latest: LatestFailure,
): Promise<{ outcome: Outcome } | { why: string | undefined }> {
  const decision = decideRemediation({
    strategy: pass.spec.remediation?.strategy,
    verificationFailures: pass.spec.remediation?.verificationFailures,
    latest,
    history: historyOf(pass),
    lastGoodRevision: pass.status.lastGoodRevision,
    activeRevisionId: deployment.active_revision_id ?? undefined,
  });
  if (decision.action === 'none') return { why: decision.why };
  if (decision.action === 'rollbackFailed') throw new Stall('RollbackFailed', decision.message);
  let redeployed: Deployment;
  try {
    redeployed = await external.redeploy(deployment.id, decision.to, `rollback: ${decision.message}`);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    setHistory(pass, markPruned(historyOf(pass), decision.to));
    throw new Stall(
      'RollbackFailed',
      `${decision.message}, but the platform no longer has revision ${decision.to} (404: its history was pruned); nothing more is tried`,
    );
  }
  const at = deps.now().toISOString();
  setHistory(pass, markRolledBack(historyOf(pass), decision.from, at));
  noteRevision(deps, pass, redeployed, 'Rollback', decision.to);
  recordObserved(pass.status, redeployed);
  pass.events.push({ type: 'Warning', reason: EventReason.RollingBack, message: decision.message });
  return {
    outcome: {
      kind: 'progressing',
      reason: 'RollingBack',
      message: `${decision.message}: redeployed as revision ${redeployed.latest_revision_id}; git still asks for the failed configuration (annotation ${Annotation.ReconcileRequestedAt} or a spec change applies it again)`,
    },
  };
}

/**
 * A spec equal to a revision in the history that deployed (a `git revert`): redeploy it, no PATCH and no
 * build. Undefined when there is none, or when the platform no longer has it (404): then the caller PATCHes.
 */
export async function fastRevert(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  external: ExternalDeployment,
  deployment: Deployment,
  patch: { changed: readonly string[]; createsRevision: boolean },
): Promise<Deployment | undefined> {
  const target = revertTarget({
    history: historyOf(pass),
    desired: around(pass),
    changed: patch.changed,
    createsRevision: patch.createsRevision,
    latestRevisionId: deployment.latest_revision_id ?? undefined,
    generation: pass.generation,
  });
  if (!target) return undefined;
  const why = `the spec's configuration equals revision ${target.id}'s (a revert): redeployed it instead of a PATCH, no build`;
  let redeployed: Deployment;
  try {
    redeployed = await external.redeploy(deployment.id, target.id, why);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    setHistory(pass, markPruned(historyOf(pass), target.id));
    pass.events.push({
      type: 'Normal',
      reason: EventReason.RevertFellBack,
      message: `the spec's configuration equals revision ${target.id}'s, which the platform no longer has (404): PATCHing ${patch.changed.join(', ')} instead`,
    });
    return undefined;
  }
  noteRevision(deps, pass, redeployed, 'Revert', target.id);
  pass.events.push({ type: 'Normal', reason: EventReason.Reverted, message: why });
  return redeployed;
}

/**
 * Observe-only: what spec.remediation would do about the failed latest revision, said and never done
 * (an empty string when it would do nothing).
 */
export function wouldRemediate(
  pass: AgentDeploymentPass,
  deployment: Deployment,
  latest: LatestFailure,
): string {
  if (pass.spec.remediation?.strategy !== 'Rollback') return '';
  const decision = decideRemediation({
    strategy: 'Rollback',
    verificationFailures: pass.spec.remediation.verificationFailures,
    latest,
    history: historyOf(pass),
    lastGoodRevision: pass.status.lastGoodRevision,
    activeRevisionId: deployment.active_revision_id ?? undefined,
  });
  const what =
    decision.action === 'rollback'
      ? `would roll back to revision ${decision.to}`
      : decision.action === 'rollbackFailed'
        ? decision.message
        : `would not roll back (${decision.why ?? 'nothing to roll back to'})`;
  return `; observe-only: spec.remediation ${what}, and nothing is sent`;
}

/**
 * followRevision's hook: the latest revision failed and spec.retry gave up (`message`: what follow.ts
 * says). Rolled back (RollingBack), RollbackFailed, or RevisionFailed saying why no rollback.
 */
export async function afterFailure(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  external: ExternalDeployment,
  deployment: Deployment,
  latest: LatestFailure,
  message: string,
): Promise<Outcome> {
  const remedy = await remediate(deps, pass, external, deployment, latest);
  if ('outcome' in remedy) return remedy.outcome;
  throw new Stall('RevisionFailed', remedy.why ? `${message}; ${remedy.why}` : message);
}

/**
 * verify's hook: the result goes into the history; verified, a rollback of this spec reports RolledBack;
 * failed, remediation may roll back (or says why not).
 */
export async function afterVerification(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  external: ExternalDeployment,
  step: { view: VerificationView; record?: VerificationStatus | undefined },
): Promise<Outcome> {
  const revisionId = pass.status.latestRevisionId ?? '';
  const { outcome, verified } = step.view;
  observeVerified(deps, pass, revisionId, verified.status);
  if (verified.status === 'True') return rolledBackOutcome(pass, true) ?? outcome;
  // Only the agent's own failure counts (not a URL the controller may not call).
  if (verified.status !== 'False' || verified.reason !== 'VerificationFailed' || !pass.deployment)
    return outcome;
  const failures = step.record?.revisionId === revisionId ? (step.record.failures ?? 1) : 1;
  const remedy = await remediate(deps, pass, external, pass.deployment, {
    id: revisionId,
    failure: 'verification',
    failures,
  });
  if ('outcome' in remedy) return remedy.outcome;
  return remedy.why ? { ...outcome, message: `${outcome.message}; ${remedy.why}` } : outcome;
}
