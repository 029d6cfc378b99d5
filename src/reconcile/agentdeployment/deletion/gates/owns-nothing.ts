/** Gate `ownsNothing`: an object recording no id (nor taking one) owns nothing: release, nothing deleted. */
import { EventReason } from '../../../../api/names.ts';
import type { DeletionGate } from '../verdict.ts';

export const ownsNothing: DeletionGate = (f) =>
  f.recordedId
    ? undefined
    : {
        kind: 'release',
        how: 'orphaned',
        event: {
          reason: EventReason.Orphaned,
          message: 'this object owns no deployment on the control plane: nothing deleted',
        },
      };
