/**
 * Gate `takeFound`: after a create without an answer the deployments of the name are looked up; one the
 * create guard proves this object made is taken (recorded, then deleted). One made before the mark, or
 * claimed by another object, is not this object's.
 */
import { EventReason } from '../../../../api/names.ts';
import { judgeFound } from '../../guard.ts';
import { resolvedCredentials } from '../facts.ts';
import type { DeletionGate } from '../verdict.ts';

export const takeFound: DeletionGate = (f) => {
  const { recordedId, pendingSince } = f;
  if (recordedId || !pendingSince) return undefined;
  if (!f.byName) return { kind: 'read', read: 'byName' };
  const { live } = f.byName;
  if (!live) return undefined;
  const { claimedBy } = resolvedCredentials(f);
  const verdict = judgeFound({ found: live, pendingSince, claimedBy: claimedBy(live.id) });
  if (!verdict.take) return undefined;
  return { kind: 'take', deployment: live, event: { reason: EventReason.Found, message: verdict.message } };
};
