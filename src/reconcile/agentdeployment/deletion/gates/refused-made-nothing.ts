/**
 * Gate `refusedMadeNothing`: never allowed the default credentials and recording no id, the object was
 * never allowed to call the control plane, so it made nothing: release, nothing read.
 */
import type { DeletionGate } from '../verdict.ts';

export const refusedMadeNothing: DeletionGate = (f) =>
  f.defaultCredentialsRefused && !f.recordedId ? { kind: 'release', how: 'orphaned' } : undefined;
