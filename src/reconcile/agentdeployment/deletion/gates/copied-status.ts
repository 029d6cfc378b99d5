/**
 * Gate `copiedStatus`: a recorded id another object holds and wins (AlreadyManaged: a copied status) is
 * that object's to delete: release without deleting.
 */
import { EventReason } from '../../../../api/names.ts';
import { resolvedCredentials } from '../facts.ts';
import type { DeletionGate } from '../verdict.ts';

export const copiedStatus: DeletionGate = (f) => {
  const { conflict } = resolvedCredentials(f);
  if (!f.recordedId || conflict?.reason !== 'AlreadyManaged') return undefined;
  return {
    kind: 'release',
    how: 'orphaned',
    leftId: f.recordedId,
    event: { reason: EventReason.Orphaned, message: conflict.message },
  };
};
