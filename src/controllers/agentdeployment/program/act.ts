/**
 * The `decide` step: the program (reconcile/agentdeployment/program.ts, read through the controller's
 * port, gather.ts) decides, then the act stage acts on the verdict: the status it writes starts from what
 * the facts learned; paused, wait or stall end the pass; create, patch and redeploy are sent through the
 * external resource, and so are a rollback and a revert (remediate.ts); a revision in progress is looked
 * at again; one deployed is Ready, or RolledBack; observe-only reports (observe-only.ts). With
 * spec.verification, a deployed revision goes through the verification stage (verification.ts) first,
 * and the chain decides again on its result: one act, whatever the stage that came before.
 */
import { Annotation, EventReason } from '../../../api/names.ts';
import { createContest } from '../../../reconcile/agentdeployment/claims.ts';
import { claimConflictOf } from '../../../reconcile/agentdeployment/claims-met.ts';
import type { AgentDeploymentFacts } from '../../../reconcile/agentdeployment/facts.ts';
import { isObserveOnly } from '../../../reconcile/agentdeployment/management.ts';
import { ownedDeployment } from '../../../reconcile/agentdeployment/owned.ts';
import { type ProgramPort, runAgentDeployment } from '../../../reconcile/agentdeployment/program.ts';
import { recordApplied, recordObserved, recordWatched } from '../../../reconcile/agentdeployment/status.ts';
import type {
  FinalVerdict,
  Gate,
  GateName,
  PatchVerdict,
} from '../../../reconcile/agentdeployment/verdict.ts';
import { takeReconcileRequest } from '../../../runtime/annotations.ts';
import { type Outcome, Stall, Wait } from '../../../runtime/outcome.ts';
import type { Step } from '../../../runtime/reconcile-shell.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from '../types.ts';
import { keepAnalysis, measureAnalysis } from './analysis.ts';
import { analysisEvents } from './analysis-events.ts';
import { controllerPort, passExternal, resolvedOf, secretsTakenEvent } from './gather.ts';
import { noteRevision, revert, rollBack } from './remediate.ts';
import { type Verification, verify } from './verification.ts';
import { spendOverride, WRITES, windowHeld, windowStatus } from './window-status.ts';

const progressing = (message: string): Outcome => ({ kind: 'progressing', reason: 'Progressing', message });

/** `factsOf`: the pass's facts (made once per pass). */
export function decideStep(
  deps: AgentDeploymentDeps,
  factsOf: (pass: AgentDeploymentPass) => AgentDeploymentFacts,
  gates?: readonly (readonly [GateName, Gate])[],
): Step<AgentDeploymentPass> {
  return {
    name: 'decide',
    async run(pass) {
      // What an earlier pass found in sync is this pass's to judge again (its inSync sets it anew).
      deps.observer.unmatch(pass.key);
      const facts = factsOf(pass);
      const port = controllerPort(deps, pass);
      const before = pass.obj.status;
      /** The chain's verdict, a measuring of the analysis included. */
      const decide = async () =>
        analysed(deps, pass, facts, await runAgentDeployment(facts, port, gates), port, gates);
      try {
        let verdict: FinalVerdict;
        try {
          verdict = await decide();
        } finally {
          // The status written starts from what the facts learned, also when a read failed on the way.
          // The facts' own status is handed over, copied only when the chain may decide again after a
          // verification (the facts then go on from what they learned, not from what the act wrote).
          pass.status = verifies(pass, facts) ? structuredClone(facts.object.status) : facts.object.status;
        }
        // Paused by annotation, a reconcile request waits for the resume; paused by an analysis, it is taken.
        if (verdict.kind !== 'paused' || verdict.reason) takeReconcileRequest(pass.obj, pass.status);
        windowStatus(pass, facts);
        const held =
          verdict.kind === 'wait' && verdict.windowClosed && facts.window?.ok
            ? facts.window.holders
            : undefined;
        deps.windowHolds(pass.key, held?.policies ?? [], held?.own ?? false);
        const outcome = await act(deps, pass, facts, verdict);
        if (WRITES.has(verdict.kind)) spendOverride(pass, facts);
        if (outcome || !verifies(pass, facts)) return outcome;
        // Deployed (or patched without a revision): verified before Ready; a result that counts is the
        // chain's to decide on again (everything it reads is read already).
        const verification = await verify(deps, pass, facts);
        if (!verification.counts) return verification.outcome;
        const again = await decide();
        keepAnalysis(pass.status, facts.object.status);
        return act(deps, pass, facts, again, verification);
      } finally {
        pass.events.push(...analysisEvents(before, pass.status, pass.spec.analysis));
      }
    },
  };
}

/** A deployed revision goes through the verification stage: asked for, and not observe-only. */
const verifies = (pass: AgentDeploymentPass, facts: AgentDeploymentFacts): boolean =>
  !!pass.spec.verification && !facts.observation;

/**
 * A `measure` verdict goes through the analysis stage (analysis.ts), and the chain decides again on
 * what it recorded; past the namespace's rate bound, the pass looks again once it allows.
 */
async function analysed(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  facts: AgentDeploymentFacts,
  verdict: FinalVerdict,
  port: ProgramPort,
  gates: readonly (readonly [GateName, Gate])[] | undefined,
): Promise<FinalVerdict> {
  if (verdict.kind !== 'measure') return verdict;
  const { throttledForMs } = await measureAnalysis(deps, pass, facts, verdict);
  const again = await runAgentDeployment(facts, port, gates);
  if (again.kind !== 'measure') return again;
  return {
    gate: 'analysis',
    kind: 'progressing',
    analysisRunning: true,
    message: `${again.message}: the namespace's analysis measurements are at their rate bound, measured when it allows`,
    requeueAfterMs: throttledForMs,
    revision: again.revision,
  };
}

/** `verification`: the verification stage's result, when the verdict comes after one. */
export async function act(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  facts: AgentDeploymentFacts,
  verdict: FinalVerdict,
  verification?: Verification,
): Promise<Outcome | undefined> {
  const { status } = pass;
  // The deployment as its revision was read (what verification calls).
  if (facts.followed) pass.deployment = facts.followed.deployment;
  // Under full management there is no drift report; an observe-only object's is rewritten below.
  if (!isObserveOnly(pass.spec)) delete status.drift;
  if (verdict.kind === 'wait' && verdict.observeOnly) {
    // Nothing to observe (NotFound), or it is being deleted: no drift to report.
    watched(deps, pass, facts, status.deploymentId === ownedDeployment(facts)?.id);
    delete status.drift;
  } else if (
    verdict.kind === 'patch' ||
    verdict.kind === 'revert' ||
    ((verdict.kind === 'wait' || verdict.kind === 'stall') && verdict.compared)
  ) {
    watched(deps, pass, facts, true);
  }
  const patching = verdict.kind === 'revert' ? verdict.patch : verdict;
  if (patching.kind === 'patch' && patching.secretsTakenAsCurrent) pass.events.push(secretsTakenEvent(facts));
  switch (verdict.kind) {
    case 'paused':
      return { kind: 'paused', reason: verdict.reason ?? 'Paused', message: verdict.message };
    case 'measure':
      throw new Error("a measure verdict is the analysis stage's, before the act");
    case 'stall':
      if (verdict.undone) status.lastHandledUndoAt = verdict.undone;
      // Refused the default credentials: the batched poll read its deployment with them before: no more.
      if (verdict.forgetPolled) deps.observer.untrack(pass.key);
      redeploySkipped(pass, verdict);
      throw new Stall(verdict.reason, verdict.message);
    case 'wait':
      if (verdict.windowClosed) windowHeld(pass, verdict.message);
      throw new Wait(verdict.reason, verdict.message, verdict.retryAfterMs);
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
      noteRevision(deps, pass, created, 'Spec');
      return progressing(
        `deployment ${created.id} created; following revision ${created.latest_revision_id}`,
      );
    }
    case 'revert': {
      const external = passExternal(deps, pass, facts);
      const reverted = await revert(deps, pass, external, verdict);
      if (reverted) {
        recordApplied(status, reverted, verdict.patch.digests);
        return progressing(`reverted by a redeploy; following revision ${reverted.latest_revision_id}`);
      }
      // The platform no longer has the revision (404): the PATCH converge would have sent.
      return patch(deps, pass, external, verdict.patch);
    }
    case 'patch':
      return patch(deps, pass, passExternal(deps, pass, facts), verdict);
    case 'rollback': {
      // An undo is handled once the platform answered (a refusal included), never after a failed call.
      const handled = () => {
        if (verdict.undone) status.lastHandledUndoAt = verdict.undone;
      };
      try {
        const outcome = await rollBack(deps, pass, passExternal(deps, pass, facts), verdict);
        handled();
        return outcome;
      } catch (err) {
        if (err instanceof Stall) handled();
        throw err;
      }
    }
    case 'redeploy': {
      const { deployment, revision, why } = verdict;
      const redeployed = await passExternal(deps, pass, facts).redeploy(deployment.id, revision.id, why);
      if (verdict.trigger === 'retry') status.retries = (status.retries ?? 0) + 1;
      if (verdict.handled) status.lastHandledRedeployAt = verdict.handled;
      recordObserved(status, redeployed);
      noteRevision(deps, pass, redeployed, verdict.trigger === 'retry' ? 'Retry' : 'Request', revision.id);
      return progressing(
        `revision ${revision.id} redeployed (${why}); following revision ${redeployed.latest_revision_id}`,
      );
    }
    case 'progressing':
      redeploySkipped(pass, verdict);
      observedAsApplied(pass, facts);
      if (verdict.requeueAfterMs !== undefined) pass.requeueAfterMs = verdict.requeueAfterMs;
      if (verdict.rollingBack)
        return { kind: 'progressing', reason: 'RollingBack', message: verdict.message };
      if (verdict.analysisRunning)
        return { kind: 'progressing', reason: 'AnalysisRunning', message: verdict.message };
      return progressing(verdict.message);
    case 'ready':
      redeploySkipped(pass, verdict);
      observedAsApplied(pass, facts);
      if (facts.observation) return { kind: 'ready', reason: 'Succeeded', message: verdict.message };
      // Verified next, when asked for (an observe-only object runs nothing on the agent server).
      if (pass.spec.verification && !verification) return undefined;
      if (verification && verification.verified.status !== 'True')
        return verdict.noRollback
          ? { ...verification.outcome, message: `${verification.outcome.message}; ${verdict.noRollback}` }
          : verification.outcome;
      // While a rollback made for this spec serves: RolledBack (Stalled), after a deploy or a verification.
      if (verdict.rolledBack) return { kind: 'stalled', reason: 'RolledBack', message: verdict.message };
      return verification?.outcome ?? { kind: 'ready', reason: 'Succeeded', message: verdict.message };
  }
}

/**
 * The deployment the verdict compared with the spec, recorded as watched: polled by the observer, and
 * shown in status; `owned` false (observe-only, seen by name): its id is not recorded as the object's.
 */
function watched(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  facts: AgentDeploymentFacts,
  owned: boolean,
): void {
  const deployment = ownedDeployment(facts);
  if (!deployment || !facts.credentials?.ok) return;
  const { credentials, tenant } = resolvedOf(facts);
  deps.observer.track(pass.key, credentials, deployment.id);
  pass.deployment = deployment;
  recordWatched(pass.status, deployment, tenant);
  if (!owned) delete pass.status.deploymentId;
}

/** Converge's PATCH of what differs; a PATCH that makes a revision is followed next. */
async function patch(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  external: ReturnType<typeof passExternal>,
  verdict: PatchVerdict,
): Promise<Outcome | undefined> {
  const patched = await external.update(verdict.deployment.id, verdict.patch, verdict.changed);
  recordApplied(pass.status, patched, verdict.digests);
  if (verdict.createsRevision) {
    noteRevision(deps, pass, patched, 'Spec');
    return progressing(
      `patched ${verdict.changed.join(', ')}; following revision ${patched.latest_revision_id}`,
    );
  }
  pass.deployment = patched;
  // Nothing to follow: verified next when asked for; otherwise the next pass finds it in sync.
  if (pass.spec.verification) return undefined;
  return progressing(`patched ${verdict.changed.join(', ')}; no revision to follow`);
}

/** A redeploy request the revision's state answers without a redeploy: recorded as handled, and said. */
function redeploySkipped(
  pass: AgentDeploymentPass,
  verdict: { handled?: string | undefined; revision?: { id: string; status: string } | undefined },
): void {
  // Already recorded (by the act before a verification): said once.
  if (!verdict.handled || !verdict.revision || pass.status.lastHandledRedeployAt === verdict.handled) return;
  pass.status.lastHandledRedeployAt = verdict.handled;
  pass.events.push({
    type: 'Normal',
    reason: EventReason.RedeploySkipped,
    message: `annotation ${Annotation.RedeployRequestedAt}=${verdict.handled}: revision ${verdict.revision.id} is ${verdict.revision.status}, nothing to redeploy`,
  });
}

/**
 * Observe-only, no drift and the revision not failed: what the platform has is what the spec says,
 * recorded as applied as a full pass would, so switching to full management later patches nothing.
 */
function observedAsApplied(pass: AgentDeploymentPass, facts: AgentDeploymentFacts): void {
  if (!facts.observation || facts.observation.drift.length > 0) return;
  pass.status.secretsDigest = facts.observation.digests.secrets;
  pass.status.appliedConfigDigest = facts.observation.digests.unechoed;
}
