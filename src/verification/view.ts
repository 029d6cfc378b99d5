/**
 * How a verification record reads in conditions, pure: the outcome the pass ends with (Ready follows it)
 * and the `Verified` condition. A failed verification is `waiting`, not `stalled`: the agent may recover,
 * and the check is repeated with backoff.
 */

import type { Reason } from '../api/names.ts';
import type { VerificationStatus } from '../api/verification.ts';
import type { Outcome } from '../runtime/outcome.ts';

export const VERIFIED = 'Verified';

export interface VerifiedCondition {
  status: 'True' | 'False' | 'Unknown';
  reason: Reason;
  message: string;
}

export interface VerificationView {
  outcome: Outcome;
  verified: VerifiedCondition;
}

export function viewOf(record: VerificationStatus | undefined, revisionId: string): VerificationView {
  const last = record?.revisionId === revisionId ? record.last : undefined;
  const current = record?.revisionId === revisionId ? record.current : undefined;
  if (last?.outcome === 'Succeeded') {
    const what = `run ${last.runId} on thread ${last.threadId} succeeded at ${last.completedAt}${last.duration ? ` in ${last.duration}` : ''}`;
    return {
      outcome: {
        kind: 'ready',
        reason: 'Succeeded',
        message: `revision ${revisionId} is DEPLOYED and verified: ${what}`,
      },
      verified: { status: 'True', reason: 'Succeeded', message: what },
    };
  }
  if (last?.outcome === 'Failed') {
    const failures = record?.failures ?? 1;
    const message = `${last.message ?? 'verification failed'} (${failures} failed in a row; retrying with backoff)`;
    return {
      outcome: {
        kind: 'waiting',
        reason: 'VerificationFailed',
        message: `revision ${revisionId} is DEPLOYED but does not pass verification: ${message}`,
      },
      verified: { status: 'False', reason: 'VerificationFailed', message },
    };
  }
  const message = current
    ? `verifying revision ${revisionId}: run ${current.runId} on thread ${current.threadId} in progress`
    : `verifying revision ${revisionId}`;
  return {
    outcome: { kind: 'progressing', reason: 'Verifying', message },
    verified: { status: 'Unknown', reason: 'Verifying', message },
  };
}

/** Why a verification could not start (no request was made). */
export type UnverifiedReason = Extract<
  Reason,
  'URLNotAllowed' | 'NoURLToVerify' | 'WaitingForCredentials' | 'InvalidCredentials'
>;

/** Verification that cannot start: Verified Unknown, and the pass ends the way `kind` says. */
export function unverifiedView(
  kind: 'stalled' | 'waiting',
  reason: UnverifiedReason,
  message: string,
): VerificationView {
  return { outcome: { kind, reason, message }, verified: { status: 'Unknown', reason, message } };
}

/** The view with a note after both messages (a verification that sent no key says so). */
export function notedView(view: VerificationView, note: string): VerificationView {
  return {
    outcome: { ...view.outcome, message: `${view.outcome.message} (${note})` },
    verified: { ...view.verified, message: `${view.verified.message} (${note})` },
  };
}
