/**
 * Gate `lateCommit`: after a create without an answer, with nothing of the name yet, the finalizer waits
 * out a late commit (LATE_COMMIT_WINDOW_MS after the create was sent), then the name is looked up again.
 */
import { LATE_COMMIT_WINDOW_MS } from '../facts.ts';
import type { DeletionGate } from '../verdict.ts';

export const lateCommit: DeletionGate = (f) => {
  const { pendingSince } = f;
  if (f.recordedId || !pendingSince || f.byName?.live) return undefined;
  const until = Date.parse(pendingSince) + LATE_COMMIT_WINDOW_MS;
  const left = until - f.now.getTime();
  if (!(left > 0)) return undefined;
  return {
    kind: 'wait',
    why: 'lateCommit',
    reason: 'Deleting',
    message: `a create sent at ${pendingSince} got no answer and nothing named ${f.name} exists yet; it may still commit, so the finalizer stays until ${new Date(until).toISOString()} and the name is looked up again then (set spec.deletionPolicy to Orphan to release it now)`,
    retryAfterMs: left,
  };
};
