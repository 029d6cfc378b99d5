/**
 * Following a deployment to the end, pure. A revision: given the deployment, its latest revision and
 * what the object asks for (progress deadline, spec.retry, a redeploy request), redeploy, wait, stall,
 * or call it Ready; the followRevision step reads the inputs and acts on the verdict. A deletion: what
 * the object says while the platform is still deleting (DEVELOPMENT.md, "How a reconcile decides").
 */
import {
  type AgentDeploymentSpec,
  DEFAULT_PROGRESS_DEADLINE,
  DEFAULT_RETRY_BACKOFF,
} from '../../api/agentdeployment.ts';
import { Annotation } from '../../api/names.ts';
import {
  type RetryPolicy,
  readiness,
  retryDecision,
  revisionAgeMs,
  revisionPhase,
  revisionPollDelayMs,
} from '../../controlplane/progress.ts';
import { REVISION_SUCCEEDED } from '../../controlplane/schemas.ts';
import { formatDuration, parseDuration } from '../../lib/duration.ts';
import type { Outcome } from '../../runtime/outcome.ts';

export interface FollowInput {
  deployment: { id: string; status: string };
  /** The latest revision; the times are known when it was read this pass. */
  revision: { id: string; status: string; createdAt?: string | undefined; updatedAt?: string | undefined };
  progressDeadlineMs: number;
  retry: RetryPolicy | undefined;
  /** Automatic redeploys already made for the current spec. */
  retries: number;
  /** A redeploy-requested-at value not handled yet. */
  redeployRequest: string | undefined;
  /** The shortest wait between two looks at a revision in progress (REVISION_POLL_INTERVAL). */
  minPollMs: number;
  nowMs: number;
}

export type FollowVerdict =
  | { action: 'ready'; message: string }
  | { action: 'progressing'; message: string; requeueAfterMs: number }
  /** `why` says what failed and what asked for the redeploy (for the event and the message). */
  | { action: 'redeploy'; trigger: 'annotation' | 'retry'; why: string }
  | { action: 'stall'; reason: 'RevisionFailed' | 'ProgressDeadlineExceeded'; message: string };

/** The verdict, and whether a pending redeploy request is handled by it (redeployed, or nothing to redo). */
export type FollowDecision = FollowVerdict & { requestHandled: boolean };

/** INTERRUPTED is transient for the platform, but a redeploy request or spec.retry may restart it. */
const isRedeployable = (status: string) => revisionPhase(status) === 'failed' || status === 'INTERRUPTED';

const isPastDeadline = (input: FollowInput) =>
  revisionAgeMs(input.revision.createdAt ?? '', input.nowMs) > input.progressDeadlineMs;

export function followDecisionOf(input: FollowInput): FollowDecision {
  const { revision, redeployRequest } = input;
  const phase = revisionPhase(revision.status);
  // By hand, a revision stuck past its deadline may be redeployed too.
  const redeployable = isRedeployable(revision.status) || (phase === 'inProgress' && isPastDeadline(input));
  if (redeployRequest !== undefined && redeployable) {
    return {
      action: 'redeploy',
      trigger: 'annotation',
      why: `${revision.status}; annotation ${Annotation.RedeployRequestedAt}=${redeployRequest}`,
      requestHandled: true,
    };
  }
  // A request meeting a revision that is not failed has nothing to redo; one meeting a revision still
  // in progress waits for it to end.
  const requestHandled = redeployRequest !== undefined && (phase === 'deployed' || phase === 'superseded');
  return { ...verdict(input, phase), requestHandled };
}

function verdict(input: FollowInput, phase: ReturnType<typeof revisionPhase>): FollowVerdict {
  const { deployment, revision, retry, retries, minPollMs, nowMs } = input;
  const sinceChange = revisionAgeMs(revision.updatedAt ?? '', nowMs);
  if (isRedeployable(revision.status)) {
    const retrying = retryDecision(retry, revision.status, retries, sinceChange);
    if (retrying.action === 'redeploy') {
      return {
        action: 'redeploy',
        trigger: 'retry',
        why: `${revision.status}; spec.retry: retry ${retries + 1} of ${retry?.limit}`,
      };
    }
    if (retrying.action === 'wait') {
      return {
        action: 'progressing',
        // The time, not the time left: the message (a condition's) stays the same from pass to pass.
        message: `revision ${revision.id} is ${revision.status}; retry ${retries + 1} of ${retry?.limit} at ${secondsOf(nowMs + retrying.delayMs)}`,
        requeueAfterMs: retrying.delayMs,
      };
    }
    if (phase === 'failed') {
      const tried =
        retrying.action === 'exhausted'
          ? ` after ${retries} automatic redeploy${retries === 1 ? '' : 's'} (spec.retry.limit ${retry?.limit})`
          : '';
      return {
        action: 'stall',
        reason: 'RevisionFailed',
        message: `revision ${revision.id} ended in ${revision.status}${tried}; set annotation ${Annotation.RedeployRequestedAt} to a new value to redeploy it, or change the spec`,
      };
    }
    // INTERRUPTED without (or past) spec.retry: the platform may still resume it; the deadline decides.
  }
  if (phase === 'inProgress') {
    const age = revisionAgeMs(revision.createdAt ?? '', nowMs);
    const deadline = input.progressDeadlineMs;
    if (isPastDeadline(input)) {
      return {
        action: 'stall',
        reason: 'ProgressDeadlineExceeded',
        message: `revision ${revision.id} is still ${revision.status} after ${formatDuration(age)}, past spec.progressDeadline (${formatDuration(deadline)}); it is still followed, and annotation ${Annotation.RedeployRequestedAt} (a new value) or a spec change starts a new one`,
      };
    }
    const wait = readiness(deployment, revision);
    return {
      action: 'progressing',
      message: `waiting for ${wait.ready ? `revision ${revision.id}` : wait.waitingFor}`,
      // Back off with the revision's age, but look again by the deadline.
      requeueAfterMs: Math.max(minPollMs, Math.min(revisionPollDelayMs(age, minPollMs), deadline - age)),
    };
  }
  if (phase === 'superseded') {
    return {
      action: 'progressing',
      message: `revision ${revision.id} was superseded (SKIPPED); following the newer one`,
      requeueAfterMs: minPollMs,
    };
  }
  const ready = readiness(deployment, revision);
  if (!ready.ready) {
    return {
      action: 'progressing',
      message: `waiting for ${ready.waitingFor}`,
      requeueAfterMs: revisionPollDelayMs(sinceChange, minPollMs),
    };
  }
  return {
    action: 'ready',
    message: `revision ${revision.id} is DEPLOYED and deployment ${deployment.id} READY`,
  };
}

/** spec.progressDeadline in milliseconds; 30m when the object lacks it (built in code, or older). */
export function progressDeadlineOf(spec: { progressDeadline?: string | undefined }): number {
  return parseDuration(spec.progressDeadline ?? DEFAULT_PROGRESS_DEADLINE) ?? 30 * 60_000;
}

export function retryPolicyOf(spec: Pick<AgentDeploymentSpec, 'retry'>): RetryPolicy | undefined {
  if (!spec.retry) return undefined;
  return {
    limit: spec.retry.limit,
    backoffMs: parseDuration(spec.retry.backoff ?? DEFAULT_RETRY_BACKOFF) ?? 30_000,
  };
}

export interface DeletionInput {
  /** The deployments the platform still has after the delete was asked for. */
  remaining: readonly { id: string; status: string }[];
  /** As the object carries it: an RFC 3339 string (or a Date). */
  deletionTimestamp: unknown;
  minPollMs: number;
  nowMs: number;
}

/**
 * While the platform deletes, the finalizer stays: the object is Reconciling (`Deleting`) with the
 * deployment's state, and the pass comes back soon at first, then less often (as for a revision).
 */
export function followDeletion(input: DeletionInput): { outcome: Outcome; requeueAfterMs: number } {
  const { deletionTimestamp: at } = input;
  const since = typeof at === 'string' || at instanceof Date ? new Date(at).getTime() : Number.NaN;
  const elapsed = Number.isNaN(since) ? 0 : Math.max(0, input.nowMs - since);
  const states = input.remaining.map((d) => `${d.id} (${d.status})`).join(', ');
  return {
    outcome: {
      kind: 'progressing',
      reason: 'Deleting',
      message: `the platform is deleting deployment ${states}; the finalizer stays until it is gone`,
    },
    requeueAfterMs: revisionPollDelayMs(elapsed, input.minPollMs),
  };
}

/** An instant as RFC 3339 to the second. */
function secondsOf(ms: number): string {
  return new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The latest revision's status when it need not be read: one that ran to the end is not read again; one
 * the deployment shows active is the one deployed (`trustActive`: under full management; an observe-only
 * object reads the revision itself). Undefined: read it (its times drive deadline and retry).
 */
export function knownRevision(
  status: { latestRevisionId?: string | undefined; revisionStatus?: string | undefined },
  deployment: {
    latest_revision_id?: string | null | undefined;
    active_revision_id?: string | null | undefined;
  },
  trustActive: boolean,
): FollowInput['revision'] | undefined {
  const id = deployment.latest_revision_id;
  if (!id) return undefined;
  const known = status.latestRevisionId === id ? status.revisionStatus : undefined;
  if (known && REVISION_SUCCEEDED.has(known)) return { id, status: known };
  if (trustActive && deployment.active_revision_id === id) return { id, status: 'DEPLOYED' };
  return undefined;
}
