/**
 * Gate `holdWhileStalled`: a stall only a person can fix (STICKY_STALL_REASONS: an immutable change, a
 * rejected request, an adoption problem) holds until the object changes (a new generation) or the
 * reconcile-requested-at annotation gets a new value. A failed revision is not held: a build the platform
 * starts by itself is followed.
 */
import { STICKY_STALL_REASONS } from '../../../api/names.ts';
import { findCondition } from '../../../runtime/conditions.ts';
import type { Stall } from '../../../runtime/outcome.ts';
import type { Gate } from '../verdict.ts';

export const holdWhileStalled: Gate = (facts) => {
  const { metadata, status } = facts.object;
  const stalled = findCondition(status.conditions, 'Stalled');
  if (
    stalled &&
    stalled.observedGeneration === metadata.generation &&
    STICKY_STALL_REASONS.has(stalled.reason) &&
    !facts.reconcileRequested
  ) {
    return {
      gate: 'holdWhileStalled',
      kind: 'stall',
      reason: stalled.reason as Stall['reason'],
      message: stalled.message,
    };
  }
  return undefined;
};
