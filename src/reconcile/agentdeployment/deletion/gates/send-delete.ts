/**
 * Gate `sendDelete`: a live recorded deployment is deleted by that id only, once: one the platform is
 * deleting already is not asked again.
 */
import { isDeleting } from '../../../../controlplane/progress.ts';
import { recordedBefore, recordedIdOf } from '../facts.ts';
import type { DeletionGate } from '../verdict.ts';

export const sendDelete: DeletionGate = (f) =>
  isDeleting(recordedBefore(f).status) || f.sent
    ? undefined
    : { kind: 'delete', id: recordedIdOf(f), deleteTracingProject: f.deleteTracingProject };
