/** Gate `paused`: paused by annotation, nothing is sent; a poll-interval annotation out of bounds stalls. */
import { checkPollInterval, pausedOutcome } from '../../../runtime/annotations.ts';
import { Stall } from '../../../runtime/outcome.ts';
import type { Verdict } from '../verdict.ts';

/** Shared by both kinds: it reads only the annotations. */
export const paused = (facts: {
  object: { metadata: { annotations?: Record<string, string> | undefined } };
}): (Verdict & { kind: 'paused' | 'stall' }) | undefined => {
  const obj = { metadata: { annotations: facts.object.metadata.annotations } };
  const outcome = pausedOutcome(obj);
  if (outcome) return { gate: 'paused', kind: 'paused', message: outcome.message };
  try {
    checkPollInterval(obj);
  } catch (err) {
    if (err instanceof Stall)
      return { gate: 'paused', kind: 'stall', reason: err.reason, message: err.message };
    throw err;
  }
  return undefined;
};
