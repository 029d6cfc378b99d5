/**
 * Gate `deleted`: the platform deletes asynchronously, so the recorded id is read again (a quick deletion
 * ends in this pass): gone, it is deleted (a Deleted event).
 */
import { EventReason } from '../../../../api/names.ts';
import { recordedIdOf } from '../facts.ts';
import type { DeletionGate } from '../verdict.ts';

export const deleted: DeletionGate = (f) => {
  if (f.after === undefined) return { kind: 'read', read: 'after' };
  if (f.after !== 'missing') return undefined;
  const id = recordedIdOf(f);
  return {
    kind: 'release',
    how: 'deleted',
    event: { reason: EventReason.Deleted, message: `deleted deployment ${id}` },
  };
};
