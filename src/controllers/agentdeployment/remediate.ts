/**
 * Safe rollouts where the controller acts (the gates `fastRevert`, `rollback` and `rolledBack` decide,
 * with reconcile/history.ts and reconcile/remediation.ts): the history fed with each revision a pass makes
 * or sees, and the rollback and the fast revert sent, with what only sending can tell (a 404: the
 * platform no longer has the revision). Nothing here decides what to do.
 */

import { Annotation, EventReason } from '../../api/names.ts';
import type { HistoryEntry, RevisionTrigger } from '../../api/remediation.ts';
import { NotFoundError } from '../../controlplane/errors.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import type { Verdict } from '../../reconcile/agentdeployment/verdict.ts';
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
import { recordObserved } from '../../reconcile/status.ts';
import { type Outcome, Stall } from '../../runtime/outcome.ts';
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

/**
 * The gate `rollback`'s verdict sent: the last good revision redeployed (RollingBack), recorded in the
 * history; a 404 (its history pruned) is RollbackFailed, nothing more tried.
 */
export async function rollBack(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  external: ExternalDeployment,
  verdict: Extract<Verdict, { kind: 'rollback' }>,
): Promise<Outcome> {
  let redeployed: Deployment;
  try {
    redeployed = await external.redeploy(verdict.deployment.id, verdict.to, `rollback: ${verdict.message}`);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    setHistory(pass, markPruned(historyOf(pass), verdict.to));
    throw new Stall(
      'RollbackFailed',
      `${verdict.message}, but the platform no longer has revision ${verdict.to} (404: its history was pruned); nothing more is tried`,
    );
  }
  const at = deps.now().toISOString();
  setHistory(pass, markRolledBack(historyOf(pass), verdict.from, at));
  noteRevision(deps, pass, redeployed, 'Rollback', verdict.to);
  recordObserved(pass.status, redeployed);
  pass.events.push({ type: 'Warning', reason: EventReason.RollingBack, message: verdict.message });
  return {
    kind: 'progressing',
    reason: 'RollingBack',
    message: `${verdict.message}: redeployed as revision ${redeployed.latest_revision_id}; git still asks for the failed configuration (annotation ${Annotation.ReconcileRequestedAt} or a spec change applies it again)`,
  };
}

/**
 * The gate `fastRevert`'s verdict sent: the revision redeployed, no PATCH and no build. Undefined when
 * the platform no longer has it (404): then the caller sends the verdict's PATCH.
 */
export async function revert(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  external: ExternalDeployment,
  verdict: Extract<Verdict, { kind: 'revert' }>,
): Promise<Deployment | undefined> {
  const { target, why } = verdict;
  let redeployed: Deployment;
  try {
    redeployed = await external.redeploy(verdict.deployment.id, target, why);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    setHistory(pass, markPruned(historyOf(pass), target));
    pass.events.push({
      type: 'Normal',
      reason: EventReason.RevertFellBack,
      message: `the spec's configuration equals revision ${target}'s, which the platform no longer has (404): PATCHing ${verdict.patch.changed.join(', ')} instead`,
    });
    return undefined;
  }
  noteRevision(deps, pass, redeployed, 'Revert', target);
  pass.events.push({ type: 'Normal', reason: EventReason.Reverted, message: why });
  return redeployed;
}
