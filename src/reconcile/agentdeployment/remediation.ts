/**
 * spec.remediation, pure: when the latest revision failed past spec.retry, roll back to the last good
 * revision, or not (and why not); after a rollback, hold every write until the spec changes or a person
 * asks; and the fast revert: a spec equal to a revision that deployed is applied by redeploying it. The
 * controller's steps read the facts and act; the plan prints the same verdicts.
 */
import type { HistoryEntry, RemediationStrategy } from '../../api/remediation.ts';
import { DEFAULT_VERIFICATION_FAILURES } from '../../api/remediation.ts';
import { configOf, type RevisionConfig, sameConfig, sameSource } from './history.ts';

/** How the latest revision failed, past spec.retry's redeploys of it. */
export type LatestFailure =
  | { id: string; failure: 'deploy'; status: string }
  | { id: string; failure: 'verification'; failures: number }
  /** Its analysis (spec.analysis) failed, or a person aborted it. */
  | { id: string; failure: 'analysis'; message: string };

export interface RemediationFacts {
  strategy: RemediationStrategy | undefined;
  /** spec.remediation.verificationFailures (default 1; 0: a failed verification never rolls back). */
  verificationFailures: number | undefined;
  latest: LatestFailure;
  history: readonly HistoryEntry[];
  lastGoodRevision: string | undefined;
  activeRevisionId: string | undefined;
}

export type RemediationDecision =
  /** `why`: a rollback is asked for but cannot happen (said in the object's message). */
  | { action: 'none'; why?: string }
  | { action: 'rollback'; from: string; to: string; message: string }
  /** The failed revision is a rollback's: never a rollback of a rollback, never a retry. */
  | { action: 'rollbackFailed'; message: string };

const what = (latest: LatestFailure) =>
  latest.failure === 'deploy'
    ? `ended in ${latest.status}`
    : latest.failure === 'analysis'
      ? `failed its analysis (${latest.message})`
      : `failed verification ${latest.failures} time${latest.failures === 1 ? '' : 's'} in a row`;

export function remediationDecisionOf(facts: RemediationFacts): RemediationDecision {
  const { latest, history, lastGoodRevision: good } = facts;
  const entry = history.find((e) => e.id === latest.id);
  if (entry?.trigger === 'Rollback') {
    return {
      action: 'rollbackFailed',
      message: `revision ${latest.id}, the rollback to revision ${entry.redeployOf}, ${what(latest)}; nothing more is tried (never a rollback of a rollback)`,
    };
  }
  if (facts.strategy !== 'Rollback') return { action: 'none' };
  if (latest.failure === 'verification') {
    const limit = facts.verificationFailures ?? DEFAULT_VERIFICATION_FAILURES;
    if (limit === 0 || latest.failures < limit) return { action: 'none' };
  }
  const goodEntry = history.find((e) => e.id === good);
  if (!good || !goodEntry || good === latest.id) {
    const gone = history.find((e) => e.pruned && e.outcome === 'Deployed');
    if (gone) {
      return {
        action: 'rollbackFailed',
        message: `revision ${latest.id} ${what(latest)}; revision ${gone.id}, the last good one, is no longer on the platform (a redeploy answered 404: its history was pruned), so there is nothing to roll back to; nothing more is tried`,
      };
    }
    return { action: 'none', why: 'no revision to roll back to: none has deployed (and verified) yet' };
  }
  if (latest.failure === 'deploy' && facts.activeRevisionId === good) {
    return { action: 'none', why: `revision ${good}, the last good one, still serves: nothing to roll back` };
  }
  if (entry && sameSource(configOf(entry), configOf(goodEntry))) {
    return {
      action: 'none',
      why: `revision ${latest.id} runs the same source as revision ${good}, the last good one: the change is in its secrets or resources, which a redeploy does not restore, so no rollback`,
    };
  }
  const secrets =
    entry && entry.secretsDigest !== goodEntry.secretsDigest
      ? '; the secrets changed since: a redeploy restores the source only, the deployment keeps its current secrets'
      : '';
  return {
    action: 'rollback',
    from: latest.id,
    to: good,
    message: `revision ${latest.id} ${what(latest)}: rolling back to revision ${good}${secrets}`,
  };
}

/** The rollback the history's newest entry is, if any (with the revision it replaced). */
export function currentRollback(
  history: readonly HistoryEntry[],
): { entry: HistoryEntry; failed: string | undefined } | undefined {
  const [entry] = history;
  if (entry?.trigger !== 'Rollback') return undefined;
  return { entry, failed: history.find((e) => e.outcome === 'RolledBack')?.id };
}

/**
 * After a rollback made for this generation of the spec, nothing is sent (no PATCH back to the failed
 * configuration, no retry): until the spec changes or a person asks (reconcile-requested-at, or the
 * redeploy annotation). A revision the platform makes by itself ends it, being the newest.
 */
export function holdsAfterRollback(
  history: readonly HistoryEntry[],
  generation: number,
  personAsked: boolean,
): boolean {
  const rollback = currentRollback(history);
  return rollback !== undefined && rollback.entry.generation === generation && !personAsked;
}

/** The rolled-back report once the rollback's revision serves (and verified, with verification). */
export function rolledBackMessage(history: readonly HistoryEntry[], verified: boolean): string | undefined {
  const rollback = currentRollback(history);
  if (!rollback) return undefined;
  const { entry, failed } = rollback;
  return `revision ${failed ?? '(unknown)'} failed: rolled back to revision ${entry.redeployOf}, redeployed as revision ${entry.id}, which serves${verified ? ' and is verified' : ''}; the spec still asks for the failed configuration: nothing is sent until the spec changes or annotation deploy.agents.dev/reconcile-requested-at gets a new value`;
}

/** A ref that always names the same commit: a tag or a full commit sha. A branch may have moved. */
const isFixedRef = (ref: string | undefined) =>
  ref === undefined || ref.startsWith('refs/tags/') || /^[0-9a-f]{40}$/.test(ref);

export interface RevertFacts {
  history: readonly HistoryEntry[];
  desired: RevisionConfig;
  /** The drift decision's changed paths and whether its PATCH would make a revision. */
  changed: readonly string[];
  createsRevision: boolean;
  latestRevisionId: string | undefined;
  /** metadata.generation of the spec being applied. */
  generation: number;
}

/**
 * Whether the spec at `generation` is newer than the latest revision the history records: only such a
 * spec can be a revert (revertTarget), and the gate asks it first, before the drift it would compute.
 */
export function specAfterHistory(history: readonly HistoryEntry[], generation: number): boolean {
  const [newest] = history;
  return newest !== undefined && (newest.generation ?? 0) < generation;
}

/**
 * A `git revert`: a new spec (newer than the latest revision's) whose configuration equals a revision in
 * the history that deployed (and did not fail verification), and only its source differs from the
 * deployment (a redeploy brings back the source only): redeploy it (no build) instead of PATCHing. A
 * branch ref is rebuilt (PATCH): its head may have moved. Drift under the same spec is PATCHed as ever.
 */
export function revertTarget(facts: RevertFacts): HistoryEntry | undefined {
  const { changed, desired } = facts;
  if (!specAfterHistory(facts.history, facts.generation)) return undefined;
  if (!facts.createsRevision || changed.length === 0) return undefined;
  if (!changed.every((path) => path.startsWith('source_revision_config.'))) return undefined;
  if (!isFixedRef(desired.repoRef)) return undefined;
  return facts.history.find(
    (e) =>
      e.id !== facts.latestRevisionId &&
      e.outcome === 'Deployed' &&
      !e.pruned &&
      e.verification !== 'Failed' &&
      sameConfig(configOf(e), desired),
  );
}
