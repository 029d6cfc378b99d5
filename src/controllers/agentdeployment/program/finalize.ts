/**
 * The finalize step: a deleted object reads, decides and acts in one loop. The decision is the deletion
 * chain's (reconcile/agentdeployment/deletion/, shared with the plan's --prune), run by the one chain runner; this module
 * does the reads and the writes it asks for, then acts on the final verdict: release the finalizer, wait
 * (while the platform deletes, a late create may commit, the default credentials are not allowed, or the
 * credentials are not there), or stop.
 */
import { EventReason } from '../../../api/names.ts';
import type { Deployment } from '../../../controlplane/schemas.ts';
import type { DeletionGates } from '../../../reconcile/agentdeployment/deletion/chain.ts';
import {
  type DeletionCredentials,
  type DeletionFacts,
  deletionFactsOf,
  recordedIdOf,
} from '../../../reconcile/agentdeployment/deletion/facts.ts';
import { runDeletion } from '../../../reconcile/agentdeployment/deletion/program.ts';
import type {
  DeletionBookkeeping,
  DeletionRead,
  FinalDeletionVerdict,
} from '../../../reconcile/agentdeployment/deletion/verdict.ts';
import { followDeletion } from '../../../reconcile/agentdeployment/follow.ts';
import { recordOwned } from '../../../reconcile/agentdeployment/status.ts';
import { deletionHolders } from '../../../reconcile/agentdeployment/window-fact.ts';
import { type Outcome, outcomeOf, Retry, Stall, Wait } from '../../../runtime/outcome.ts';
import type { Step } from '../../../runtime/reconcile-shell.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from '../types.ts';
import type { ExternalDeployment } from './external.ts';
import { resolvedOf } from './gather.ts';

/** What the finalize step needs from the other steps' helpers. */
export interface FinalizeHelpers {
  external(pass: AgentDeploymentPass): ExternalDeployment;
  /**
   * Reads the object's Secrets, resolves its credentials into the pass and weighs the other objects'
   * claims (reconcile/agentdeployment/deletion-credentials.ts): the deletion chain's credentials read.
   */
  credentials(pass: AgentDeploymentPass): Promise<DeletionCredentials>;
  /** Why the object may not use the default credentials; undefined when it may (or names its own). */
  defaultCredentialsRefused(pass: AgentDeploymentPass): string | undefined;
}

/**
 * The deletion program (reconcile/agentdeployment/deletion/program.ts) through this object's external resource.
 * `credentials` resolves the object's credentials; `external` is asked for only after that.
 */
export function settleDeletion(
  facts: DeletionFacts,
  credentials: () => Promise<DeletionCredentials>,
  external: () => ExternalDeployment,
  take: (deployment: Deployment, message: string) => void,
  gates?: DeletionGates,
): Promise<FinalDeletionVerdict> {
  const port = {
    async read(read: DeletionRead, f: DeletionFacts) {
      if (read === 'credentials') f.credentials = await credentials();
      else if (read === 'byName') f.byName = await external().lookup();
      else f[read] = await external().find(recordedIdOf(f));
    },
    async act(verdict: DeletionBookkeeping) {
      if (verdict.kind === 'take') take(verdict.deployment, verdict.event.message);
      else await external().delete(verdict.id, { deleteTracingProject: verdict.deleteTracingProject });
    },
  };
  return runDeletion(facts, port, gates);
}

export function finalizeStep(
  deps: AgentDeploymentDeps,
  helpers: FinalizeHelpers,
  nameOf: (pass: AgentDeploymentPass) => string,
  gates?: DeletionGates,
): Step<AgentDeploymentPass> {
  return {
    name: 'finalize',
    async run(pass) {
      if (!pass.obj.metadata.deletionTimestamp) return undefined;
      deps.observer.untrack(pass.key);
      deps.verifier.forget(pass.key);
      const refused = helpers.defaultCredentialsRefused(pass);
      const policies = deps.windowPolicies(pass.obj.metadata.namespace ?? '', pass.obj.metadata.labels);
      const facts = deletionFactsOf(
        { ...pass.obj, spec: pass.spec, status: pass.status },
        nameOf(pass),
        deps.now(),
        refused,
        policies,
      );
      // Made once the credentials are resolved (the first read deletion asks for when it reads at all).
      let made: ExternalDeployment | undefined;
      const external = () => {
        made ??= helpers.external(pass);
        return made;
      };
      let verdict: FinalDeletionVerdict;
      try {
        verdict = await settleDeletion(
          facts,
          () => helpers.credentials(pass),
          external,
          (deployment, message) => {
            // The create guard proved it this object's: recorded as owned, and said.
            const { tenant, identity } = resolvedOf(pass.facts ?? {});
            recordOwned(pass.status, deployment.id, tenant);
            deps.observer.remember(identity, deployment, pass.key);
            pass.events.push({ type: 'Normal', reason: EventReason.Found, message });
          },
          gates,
        );
      } catch (err) {
        // A wait or a stall a read gives itself passes through; any other failure is retried.
        if (err instanceof Stall || err instanceof Wait) throw err;
        const cause = outcomeOf(err);
        throw new Retry(
          'DeleteFailed',
          `deleting the deployment failed: ${cause.message}; the finalizer stays (set spec.deletionPolicy to Orphan to release it)`,
          (err as { retryAfterMs?: number }).retryAfterMs,
        );
      }
      // What holds the DELETE, for the policies' status (held-status.ts).
      const held =
        verdict.kind === 'wait' && verdict.why === 'window' && !('unknown' in policies)
          ? deletionHolders(pass.spec.deploymentWindows, policies, facts.now)
          : { policies: [], own: false };
      deps.windowHolds(pass.key, held.policies, held.own);
      return act(deps, pass, verdict);
    },
  };
}

/** Acts on the final verdict. */
async function act(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  verdict: FinalDeletionVerdict,
): Promise<Outcome> {
  switch (verdict.kind) {
    case 'release': {
      if (verdict.event) pass.events.push({ type: 'Normal', ...verdict.event });
      const namespace = pass.obj.metadata.namespace ?? '';
      if (verdict.how !== 'noFinalizer') await deps.removeFinalizer(pass.obj, pass.signal);
      // Gone for good: its credentials Secret no longer needs to outlive it.
      await deps.releaseCredentials(namespace, pass.key, pass.signal);
      return { kind: 'deleted', reason: 'Succeeded', message: 'deletion policy applied' };
    }
    case 'wait': {
      if (verdict.why === 'lateCommit' || verdict.why === 'window')
        throw new Wait(verdict.reason, verdict.message, verdict.retryAfterMs);
      if (verdict.why === 'defaultCredentialsNotAllowed' || verdict.why === 'credentials')
        throw new Wait(verdict.reason, verdict.message);
      if (verdict.event) pass.events.push({ type: 'Normal', ...verdict.event });
      // The platform deletes asynchronously: until it is done the object says Deleting.
      const deleting = followDeletion({
        remaining: [verdict.deployment],
        deletionTimestamp: pass.obj.metadata.deletionTimestamp,
        minPollMs: deps.revisionPollMs,
        nowMs: deps.now().getTime(),
      });
      pass.status.deploymentStatus = verdict.deployment.status;
      pass.requeueAfterMs = deleting.requeueAfterMs;
      return deleting.outcome;
    }
    case 'stall':
      throw new Stall(verdict.reason, verdict.message);
  }
}
