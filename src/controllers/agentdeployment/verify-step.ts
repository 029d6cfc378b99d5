/**
 * The verify step: with spec.verification, prove the running revision answers before Ready. The result
 * goes into status and the history, and the chain decides again on it (the gates `rollback` and
 * `rolledBack`): a failure past spec.remediation's count rolls back, a verified rollback is RolledBack.
 */

import { decideAgentDeployment } from '../../reconcile/agentdeployment/chain.ts';
import type { AgentDeploymentFacts } from '../../reconcile/agentdeployment/facts.ts';
import type { Gate, GateName } from '../../reconcile/agentdeployment/verdict.ts';
import { pollIntervalOf } from '../../runtime/annotations.ts';
import type { Step } from '../../runtime/reconcile-shell.ts';
import { readVerificationKey } from '../../verification/caller.ts';
import { act, rolledBackOutcome } from './act.ts';
import { observeVerified } from './remediate.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from './types.ts';

type AgdStep = Step<AgentDeploymentPass>;

/** The revision runs: prove it answers before calling the object Ready. */
export function verifyStep(
  deps: AgentDeploymentDeps,
  factsOf: (pass: AgentDeploymentPass) => AgentDeploymentFacts,
  gates?: readonly (readonly [GateName, Gate])[],
): AgdStep {
  return {
    name: 'verify',
    async run(pass) {
      const { obj, spec, status } = pass;
      const { deployment } = pass;
      if (!spec.verification || !pass.credentials || !status.latestRevisionId || !deployment) {
        throw new Error('verify ran without verification, credentials, a revision or the deployment');
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
        credentials: pass.credentials,
        credentialsOwner: spec.credentialsSecretRef ? 'namespace' : 'controller',
        verificationKey:
          keyRef && readVerificationKey(keyRef.name, factsOf(pass).secrets?.byName.get(keyRef.name)),
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
      // Only the agent's own failure counts (not a URL the controller may not call); a success may end a
      // rollback's verification (RolledBack).
      const counts =
        verified.status === 'True' ||
        (verified.status === 'False' && verified.reason === 'VerificationFailed');
      if (!counts) return outcome;
      // The facts, gathered by the decide step, now hold the result (their status is the pass's): the
      // chain decides on them again, purely (nothing is left to read or to keep).
      const facts = factsOf(pass);
      const verdict = decideAgentDeployment(facts, gates);
      if (verdict.kind === 'rollback' || (verdict.kind === 'stall' && verdict.remediation))
        return act(deps, pass, facts, verdict);
      if (verdict.kind !== 'ready' || verified.status !== 'True')
        return verdict.kind === 'ready' && verdict.noRollback
          ? { ...outcome, message: `${outcome.message}; ${verdict.noRollback}` }
          : outcome;
      return rolledBackOutcome(verdict) ?? outcome;
    },
  };
}
