/**
 * Safe rollouts where the controller acts (the gates `fastRevert`, `rollback` and `rolledBack` decide,
 * with reconcile/agentdeployment/history.ts and reconcile/agentdeployment/remediation.ts): the history fed with each revision a pass makes
 * or sees, and the rollback and the fast revert sent, with what only sending can tell (a 404: the
 * platform no longer has the revision). Nothing here decides what to do.
 */

import { Annotation, EventReason } from '../../../api/names.ts';
import type { HistoryEntry, RevisionTrigger } from '../../../api/remediation.ts';
import { NotFoundError } from '../../../controlplane/errors.ts';
import type { Deployment } from '../../../controlplane/schemas.ts';
import { desiredConfig, markPruned, markRolledBack } from '../../../reconcile/agentdeployment/history.ts';
import type { HistoryContext } from '../../../reconcile/agentdeployment/history-record.ts';
import * as record from '../../../reconcile/agentdeployment/history-record.ts';
import { recordObserved } from '../../../reconcile/agentdeployment/status.ts';
import type { Verdict } from '../../../reconcile/agentdeployment/verdict.ts';
import { type Outcome, Stall } from '../../../runtime/outcome.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from '../types.ts';
import type { ExternalDeployment } from './external.ts';

const historyOf = (pass: AgentDeploymentPass): HistoryEntry[] => pass.status.history ?? [];

/** The pass as history-record.ts keeps the history: the secrets and resources around are the spec's. */
const contextOf = (deps: AgentDeploymentDeps, pass: AgentDeploymentPass): HistoryContext => ({
  status: pass.status,
  spec: pass.spec,
  generation: pass.generation,
  around: pass.facts?.desired?.ok
    ? desiredConfig(pass.facts.desired.request, pass.facts.desired.digests.secrets)
    : {},
  now: deps.now(),
});

const setHistory = (deps: AgentDeploymentDeps, pass: AgentDeploymentPass, history: HistoryEntry[]) =>
  record.setHistory(contextOf(deps, pass), history);

/** A revision this pass made (create, PATCH, redeploy) or first sees. */
export const noteRevision = (
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  deployment: Deployment,
  trigger: RevisionTrigger,
  redeployOf?: string,
): void => record.noteRevision(contextOf(deps, pass), deployment, trigger, redeployOf);

export const observeVerified = (
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  id: string,
  result: 'True' | 'False' | 'Unknown',
): void => record.observeVerified(contextOf(deps, pass), id, result);

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
    setHistory(deps, pass, markPruned(historyOf(pass), verdict.to));
    throw new Stall(
      'RollbackFailed',
      `${verdict.message}, but the platform no longer has revision ${verdict.to} (404: its history was pruned); nothing more is tried`,
    );
  }
  const at = deps.now().toISOString();
  setHistory(deps, pass, markRolledBack(historyOf(pass), verdict.from, at));
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
    setHistory(deps, pass, markPruned(historyOf(pass), target));
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
