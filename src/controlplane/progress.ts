/**
 * How to follow a deployment and its latest revision on the control plane, pure: what a status means
 * (a value this client does not know is in progress, never a failure), what Ready waits for, how often
 * to poll a revision, when a revision is past its deadline, and when a failed one is retried.
 */
import { isKnownRevisionStatus, REVISION_FAILED } from './schemas.ts';

export type RevisionPhase = 'deployed' | 'superseded' | 'failed' | 'inProgress';

export function revisionPhase(status: string): RevisionPhase {
  if (status === 'DEPLOYED') return 'deployed';
  if (status === 'SKIPPED') return 'superseded';
  if (REVISION_FAILED.has(status)) return 'failed';
  return 'inProgress';
}

/** Deployment statuses of a deletion under way (the second one is the notes', not the document's). */
export const DELETING_STATUSES: ReadonlySet<string> = new Set(['AWAITING_DELETE', 'AWAITING_FINAL_DELETE']);

export function isDeleting(deploymentStatus: string): boolean {
  return DELETING_STATUSES.has(deploymentStatus);
}

const DEPLOYMENT_WAITS: Record<string, string> = {
  AWAITING_DATABASE: 'its database (AWAITING_DATABASE)',
  UNUSED: 'the platform to use it (UNUSED)',
  AWAITING_DELETE: 'nothing: it is being deleted (AWAITING_DELETE)',
  AWAITING_FINAL_DELETE: 'nothing: it is being deleted (AWAITING_FINAL_DELETE)',
  UNKNOWN: 'the platform to know its state (UNKNOWN)',
};

export type Readiness = { ready: true } | { ready: false; waitingFor: string };

/** Ready needs the deployment READY and its latest revision DEPLOYED; otherwise, what is awaited. */
export function readiness(
  deployment: { status: string },
  revision: { id: string; status: string },
): Readiness {
  if (revision.status !== 'DEPLOYED') {
    return {
      ready: false,
      waitingFor: isKnownRevisionStatus(revision.status)
        ? `revision ${revision.id} to be DEPLOYED (it is ${revision.status})`
        : `revision ${revision.id} to be DEPLOYED (the platform reports ${revision.status}, a status this operator does not know; followed as in progress)`,
    };
  }
  if (deployment.status !== 'READY') {
    const what =
      DEPLOYMENT_WAITS[deployment.status] ??
      `the deployment to be READY (the platform reports ${deployment.status}, a status this operator does not know)`;
    return { ready: false, waitingFor: `deployment: ${what}` };
  }
  return { ready: true };
}

export const REVISION_POLL_MIN_MS = 5_000;
export const REVISION_POLL_MAX_MS = 60_000;

/**
 * How long to wait before looking at an in-progress revision again: 5 s at first, then a tenth of the
 * time it has been running, up to a minute (official tooling polls every 5 s to 60 s). Derived from the
 * revision's age, so no counter needs to be kept.
 */
export function revisionPollDelayMs(elapsedMs: number, minMs = REVISION_POLL_MIN_MS): number {
  return Math.min(REVISION_POLL_MAX_MS, Math.max(minMs, Math.round(elapsedMs / 10)));
}

/** Milliseconds a revision has been running, from its created_at; 0 when the time is unreadable. */
export function revisionAgeMs(createdAt: string, nowMs: number): number {
  const started = Date.parse(createdAt);
  return Number.isNaN(started) ? 0 : Math.max(0, nowMs - started);
}

export interface RetryPolicy {
  limit: number;
  backoffMs: number;
}

export type RetryDecision =
  | { action: 'none' }
  | { action: 'wait'; delayMs: number }
  | { action: 'redeploy' }
  | { action: 'exhausted' };

/** Statuses spec.retry redeploys; a build (or create) failure needs a change, never a retry. */
export const RETRYABLE_REVISION_STATUSES: ReadonlySet<string> = new Set(['DEPLOY_FAILED', 'INTERRUPTED']);

/**
 * Whether to redeploy a revision in `status` now: after `retriesDone` retries, the next one waits the
 * backoff doubled per retry, counted from when the revision last changed (`sinceMs` ago).
 */
export function retryDecision(
  policy: RetryPolicy | undefined,
  status: string,
  retriesDone: number,
  sinceMs: number,
): RetryDecision {
  if (!policy || !RETRYABLE_REVISION_STATUSES.has(status)) return { action: 'none' };
  if (retriesDone >= policy.limit) return { action: 'exhausted' };
  const dueMs = policy.backoffMs * 2 ** retriesDone;
  return sinceMs >= dueMs ? { action: 'redeploy' } : { action: 'wait', delayMs: dueMs - sinceMs };
}
