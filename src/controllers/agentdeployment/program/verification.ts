/**
 * The verification stage: with spec.verification, prove the running revision answers before Ready. The
 * result goes into status and the history (the act stage's writes) and into the facts, which the chain
 * then decides on again (the gates `rollback` and `rolledBack`): a failure past spec.remediation's count
 * rolls back, a verified rollback is RolledBack. What the result means for the outcome is act.ts's.
 */
import { learnVerification } from '../../../reconcile/agentdeployment/advance.ts';
import type { AgentDeploymentFacts } from '../../../reconcile/agentdeployment/facts.ts';
import { pollIntervalOf } from '../../../runtime/annotations.ts';
import type { Outcome } from '../../../runtime/outcome.ts';
import { readVerificationKey } from '../../../verification/caller.ts';
import type { VerifiedCondition } from '../../../verification/view.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from '../types.ts';
import { resolvedOf } from './gather.ts';
import { observeVerified } from './remediate.ts';

export interface Verification {
  /** The outcome the verification alone says (Verifying, Verified, failed...). */
  outcome: Outcome;
  verified: VerifiedCondition;
  /**
   * The result is one the chain decides on: a success (it may end a rollback), or the agent's own
   * failure (not a URL the controller may not call).
   */
  counts: boolean;
}

/** One step of the revision's verification (verifier.ts), recorded. */
export async function verify(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  facts: AgentDeploymentFacts,
): Promise<Verification> {
  const { obj, spec, status, deployment } = pass;
  if (!spec.verification || !status.latestRevisionId || !deployment) {
    throw new Error('verification ran without spec.verification, a revision or the deployment');
  }
  const revisionId = status.latestRevisionId;
  const keyRef = spec.verification.credentialsSecretRef;
  const step = await deps.verifier.step({
    key: pass.key,
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name,
    uid: obj.metadata.uid ?? obj.metadata.name,
    spec: spec.verification,
    revisionId,
    // The URL as the platform answered this pass, and whether the platform assigned it (caller.ts).
    url: deployment.source_config.custom_url ?? undefined,
    urlChosenBy: deployment.source === 'repo_host' ? 'platform' : 'namespace',
    credentials: resolvedOf(facts).credentials,
    credentialsOwner: spec.credentialsSecretRef ? 'namespace' : 'controller',
    verificationKey: keyRef && readVerificationKey(keyRef.name, facts.secrets?.byName.get(keyRef.name)),
    record: status.verification,
    log: pass.log,
    signal: pass.deadline,
  });
  status.verification = step.record;
  const { outcome, verified } = step.view;
  pass.verified = verified;
  const poll = pollIntervalOf(pass.obj, deps.pollIntervalMs);
  pass.requeueAfterMs = Math.min(poll, step.requeueAfterMs ?? poll);
  observeVerified(deps, pass, revisionId, verified.status);
  learnVerification(facts, step.record, revisionId, verified.status);
  const counts =
    verified.status === 'True' || (verified.status === 'False' && verified.reason === 'VerificationFailed');
  return { outcome, verified, counts };
}
