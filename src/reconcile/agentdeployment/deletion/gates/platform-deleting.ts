/**
 * Gate `platformDeleting` (always decides: the last gate): still there, the finalizer waits while the
 * platform deletes it; a Deleting event when the DELETE went in this pass.
 */
import { Reason } from '../../../../api/names.ts';
import { isDeleting } from '../../../../controlplane/progress.ts';
import { recordedBefore, recordedIdOf } from '../facts.ts';
import type { DeletionGate } from '../verdict.ts';

export const platformDeleting: DeletionGate = (f) => {
  const { after } = f;
  if (after === undefined || after === 'missing')
    throw new Error('platformDeleting asked before the read again');
  const alreadyDeleting = isDeleting(recordedBefore(f).status);
  return {
    kind: 'wait',
    why: 'platformDeleting',
    reason: 'Deleting',
    deployment: after,
    event: alreadyDeleting
      ? undefined
      : {
          reason: Reason.Deleting,
          message: `deletion of deployment ${recordedIdOf(f)} requested; the platform reports ${after.status}`,
        },
  };
};
