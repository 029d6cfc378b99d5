/** Gate `finalizer`: deleted without the controller's finalizer, there is nothing to do but let it go. */
import type { DeletionGate } from '../verdict.ts';

export const finalizer: DeletionGate = (f) =>
  f.hasFinalizer ? undefined : { kind: 'release', how: 'noFinalizer' };
