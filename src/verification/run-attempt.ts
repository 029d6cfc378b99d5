/** A smoke run's end as status.verification.last records it. */
import type { VerificationStatus } from '../api/verification.ts';
import { cleanPeerText } from '../lib/peer-text.ts';

type Attempt = NonNullable<VerificationStatus['last']>;
type Current = NonNullable<VerificationStatus['current']>;

export function runAttempt(
  c: Current,
  runStatus: string,
  error: { error?: string; message?: string } | undefined,
  completedBy: 'join' | 'webhook',
): Omit<Attempt, 'completedAt' | 'duration'> {
  const succeeded = runStatus === 'success';
  // The run's status and error come from the agent server: quoted short and printable only.
  const status = cleanPeerText(runStatus, 40);
  const detail = error ? cleanPeerText([error.error, error.message].filter(Boolean).join(': '), 200) : '';
  return {
    runId: c.runId,
    threadId: c.threadId,
    startedAt: c.startedAt,
    outcome: succeeded ? 'Succeeded' : 'Failed',
    runStatus: status,
    completedBy,
    ...(succeeded
      ? {}
      : { message: `run ${c.runId} on thread ${c.threadId} ended ${status}${detail ? `: ${detail}` : ''}` }),
  };
}
