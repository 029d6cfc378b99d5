/**
 * Gate `defaultCredentials`: a recorded id under default credentials the object may no longer use waits
 * (DefaultCredentialsNotAllowed), looked at again: the administrator's scope, or the policy, may change.
 * A wait, not a transient error, so what the object showed before, a held stall included, gives way.
 */
import type { DeletionGate } from '../verdict.ts';

export const defaultCredentials: DeletionGate = (f) => {
  if (!f.defaultCredentialsRefused) return undefined;
  return {
    kind: 'wait',
    why: 'defaultCredentialsNotAllowed',
    reason: 'DefaultCredentialsNotAllowed',
    message: `cannot delete deployment ${f.recordedId}: ${f.defaultCredentialsRefused}; or set spec.deletionPolicy to Orphan to release the object`,
  };
};
