/** The verify step: with spec.verification, prove the running revision answers before Ready. */
import { pollIntervalOf } from '../../runtime/annotations.ts';
import type { Step } from '../../runtime/reconcile-shell.ts';
import type { ExternalDeployment } from './external.ts';
import { afterVerification } from './remediate.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from './types.ts';

type AgdStep = Step<AgentDeploymentPass>;

/** The revision runs: prove it answers before calling the object Ready. */
export function verifyStep(
  deps: AgentDeploymentDeps,
  external: (pass: AgentDeploymentPass) => ExternalDeployment,
): AgdStep {
  return {
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
      // The result goes into the history; a failed one may roll back (remediate.ts, issue 33).
      return afterVerification(deps, pass, external(pass), step);
    },
  };
}
