/**
 * The AgentDeployment reconcile as ordered steps (DEVELOPMENT.md, "How a reconcile decides"): finalize
 * (a deleted object), then decide (the program of reconcile/agentdeployment/: gather, the chain of gates,
 * the verification stage, and the act on its verdict, act.ts). Conditions, events for
 * condition changes and the status write happen after the last step, in the shell.
 */

import { credentialsPolicy } from '../../../controlplane/resolve-credentials.ts';
import { deploymentNameOf } from '../../../reconcile/agentdeployment/claims.ts';
import type { DeletionGates } from '../../../reconcile/agentdeployment/deletion/chain.ts';
import { readDeletionCredentials } from '../../../reconcile/agentdeployment/deletion-credentials.ts';
import { defaultCredentialsRefused } from '../../../reconcile/agentdeployment/gates/default-credentials-scope.ts';
import type { Gate, GateName } from '../../../reconcile/agentdeployment/verdict.ts';
import type { Step } from '../../../runtime/reconcile-shell.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from '../types.ts';
import { decideStep } from './act.ts';
import { finalizeStep } from './finalize.ts';
import { controllerPort, factsOf, passClient, passExternal } from './gather.ts';

type AgdStep = Step<AgentDeploymentPass>;

/** `gates`, `deletionGates`: the chains to run (a test may take one out; the default is the whole chain). */
export function agentDeploymentSteps(
  deps: AgentDeploymentDeps,
  gates?: readonly (readonly [GateName, Gate])[],
  deletionGates?: DeletionGates,
): readonly AgdStep[] {
  const policy = credentialsPolicy(deps.defaultCredentials, deps.allowedControlPlanes);
  const facts = (pass: AgentDeploymentPass) => factsOf(deps, pass, policy);

  /** Deleted: the deletion chain (reconcile/agentdeployment/deletion/), read and acted on in finalize.ts. */
  const finalize = finalizeStep(
    deps,
    {
      external: (pass) => passExternal(deps, pass, facts(pass)),
      async credentials(pass) {
        const f = facts(pass);
        const read = await readDeletionCredentials(f, controllerPort(deps, pass));
        if (read.ok) passClient(deps, pass, f);
        return read;
      },
      defaultCredentialsRefused: (pass) => defaultCredentialsRefused(facts(pass)),
    },
    (pass) => deploymentNameOf({ ...pass.obj, spec: pass.spec }),
    deletionGates,
  );

  return [finalize, decideStep(deps, facts, gates)];
}
