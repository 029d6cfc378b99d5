/**
 * Gate `orphanPolicy`: deletionPolicy Orphan (an observe-only object always is): release, leaving the
 * deployment on the control plane (an Orphaned event says which).
 */
import { EventReason } from '../../../../api/names.ts';
import type { DeletionGate } from '../verdict.ts';

export const orphanPolicy: DeletionGate = (f) => {
  if (f.policy !== 'Orphan') return undefined;
  return {
    kind: 'release',
    how: 'orphaned',
    leftId: f.recordedId,
    event: {
      reason: EventReason.Orphaned,
      message: `left deployment ${f.recordedId ?? '(none)'} on the control plane${f.observeOnly ? ' (observe-only)' : ''}`,
    },
  };
};
