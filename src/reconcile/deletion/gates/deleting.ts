/** Gate `deleting`: an object not being deleted has nothing to decide here (the other steps run). */
import type { DeletionGate } from '../verdict.ts';

export const deleting: DeletionGate = (f) => (f.deleting ? undefined : { kind: 'none' });
