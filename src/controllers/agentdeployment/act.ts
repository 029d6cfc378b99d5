/**
 * The `decide` step: gather and decide (reconcile/agentdeployment/program.ts, with the controller's port,
 * gather.ts), then act on the verdict: paused, wait or stall end the pass; create, patch or none act
 * through the external resource and let revision following go on; observe-only reports (observe-only.ts).
 */
import { EventReason } from '../../api/names.ts';
import type { AgentDeploymentFacts } from '../../reconcile/agentdeployment/facts.ts';
import { claimConflictOf } from '../../reconcile/agentdeployment/gates/claims.ts';
import { ownedDeployment, ownershipFactsOf } from '../../reconcile/agentdeployment/gates/ownership.ts';
import { runAgentDeployment } from '../../reconcile/agentdeployment/program.ts';
import type { FinalVerdict, Gate, GateName } from '../../reconcile/agentdeployment/verdict.ts';
import { createContest } from '../../reconcile/claims.ts';
import { isObserveOnly } from '../../reconcile/management.ts';
import { recordApplied, recordObserved } from '../../reconcile/status.ts';
import { takeReconcileRequest } from '../../runtime/annotations.ts';
import { type Outcome, Stall, Wait } from '../../runtime/outcome.ts';
import type { Step } from '../../runtime/reconcile-shell.ts';
import { type ExternalDeployment, externalDeployment } from './external.ts';
import { controllerPort, passClient } from './gather.ts';
import { observeOnlyOutcome } from './observe-only.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from './types.ts';

const progressing = (message: string): Outcome => ({ kind: 'progressing', reason: 'Progressing', message });

/** The external resource of a pass whose credentials resolved. */
export function passExternal(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  facts: AgentDeploymentFacts,
): ExternalDeployment {
  return externalDeployment(deps, pass, passClient(deps, pass, facts), () => ownershipFactsOf(facts));
}

/** `factsOf`: the pass's facts (made once per pass: the later steps act with the same). */
export function decideStep(
  deps: AgentDeploymentDeps,
  factsOf: (pass: AgentDeploymentPass) => AgentDeploymentFacts,
  gates?: readonly (readonly [GateName, Gate])[],
): Step<AgentDeploymentPass> {
  return {
    name: 'decide',
    async run(pass) {
      const facts = factsOf(pass);
      const verdict = await runAgentDeployment(facts, controllerPort(deps, pass), gates);
      if (verdict.gate !== 'paused') takeReconcileRequest(pass.obj, pass.status);
      return act(deps, pass, facts, verdict);
    },
  };
}

/** What the pass found and watches from here: recorded in status, and polled by the observer. */
function recordFound(deps: AgentDeploymentDeps, pass: AgentDeploymentPass, facts: AgentDeploymentFacts) {
  const deployment = ownedDeployment(facts);
  if (!deployment || !pass.credentials) return undefined;
  const { status } = pass;
  // A record from before digests were kept: the deployment answers, so these are its credentials.
  if (status.deploymentId === deployment.id && !status.credentialsDigest && pass.tenant)
    status.credentialsDigest = pass.tenant;
  deps.observer.track(pass.key, pass.credentials, deployment.id);
  pass.deployment = deployment;
  return deployment;
}

async function act(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  facts: AgentDeploymentFacts,
  verdict: FinalVerdict,
): Promise<Outcome | undefined> {
  const { status } = pass;
  // Under full management there is no drift report; an observe-only object's is rewritten below.
  const found = verdict.gate === 'ownership' || verdict.gate === 'observeOnly' || verdict.gate === 'converge';
  if (found && !isObserveOnly(pass.spec)) delete status.drift;
  if (verdict.gate === 'observeOnly') {
    const owned = !!status.deploymentId && status.deploymentId === ownedDeployment(facts)?.id;
    const deployment = recordFound(deps, pass, facts);
    if (deployment) {
      recordObserved(status, deployment);
      // Observed by name only: shown, not owned (ownership takes the adopt annotation).
      if (!owned) delete status.deploymentId;
    }
    if (verdict.kind !== 'observed') delete status.drift;
  } else if (verdict.gate === 'converge') {
    const deployment = recordFound(deps, pass, facts);
    if (deployment) recordObserved(status, deployment);
  }
  if ((verdict.kind === 'none' || verdict.kind === 'patch') && verdict.secretsTakenAsCurrent) {
    pass.events.push({
      type: 'Normal',
      reason: EventReason.SecretsTakenAsCurrent,
      message: `the platform does not reveal secret values: took ${(facts.desired?.ok ? facts.desired.request.secrets : []).map((s) => s.name).join(', ')} as current instead of redeploying; the next change to a secret is sent`,
    });
  }
  switch (verdict.kind) {
    case 'paused':
      return { kind: 'paused', reason: 'Paused', message: verdict.message };
    case 'stall':
      // Refused the default credentials: the batched poll read its deployment with them before: no more.
      if (verdict.gate === 'defaultCredentialsScope') deps.observer.untrack(pass.key);
      throw new Stall(verdict.reason, verdict.message);
    case 'wait':
      throw new Wait(verdict.reason, verdict.message, verdict.retryAfterMs);
    case 'observed':
      return observeOnlyOutcome(deps, pass, verdict);
    case 'create': {
      const { digests } = verdict;
      // The mark made durable, then the contest: objects that got past the gate together (neither saw
      // the other yet) are all visible once the mark's own write is, and the older creates.
      const persist = async () => {
        const marked = JSON.parse(JSON.stringify(status));
        pass.written = await deps.writeStatus(pass.written ?? pass.obj, marked, pass.signal);
        if (!(await deps.cacheShows(pass.written, pass.signal))) {
          pass.log.warn(
            'the informer did not show the create mark in time: contesting the name on what it holds',
          );
        }
        const contest = claimConflictOf(facts, createContest);
        if (contest) throw new Stall(contest.reason, contest.message);
      };
      const external = passExternal(deps, pass, facts);
      const created = await external.create(verdict.request, persist);
      // Nothing else before the shell's status write: it records the id the moment the POST answered.
      deps.observer.track(pass.key, external.credentials, created.id);
      recordApplied(status, created, digests);
      return progressing(
        `deployment ${created.id} created; following revision ${created.latest_revision_id}`,
      );
    }
    case 'patch': {
      const patched = await passExternal(deps, pass, facts).update(
        verdict.deployment.id,
        verdict.patch,
        verdict.changed,
      );
      recordApplied(status, patched, verdict.digests);
      if (verdict.createsRevision) {
        return progressing(
          `patched ${verdict.changed.join(', ')}; following revision ${patched.latest_revision_id}`,
        );
      }
      pass.deployment = patched;
      return undefined;
    }
    case 'none':
      // Nothing to send: what the control plane has is what was applied.
      status.secretsDigest = verdict.digests.secrets;
      status.appliedConfigDigest = verdict.digests.unechoed;
      return undefined;
  }
}
