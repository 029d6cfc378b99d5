/**
 * Gate `followRevision` (follow-verdict.ts): once the deployment matches the spec (or, observe-only, is
 * observed), its latest revision is read and followed to the end; the verdict is the derived follow
 * verdict.
 */
import type { Gate } from '../verdict.ts';

export const followRevision: Gate = (facts) => {
  if (!facts.observation && !facts.inSync) return undefined;
  if (!facts.followed) return { gate: 'followRevision', kind: 'read', read: 'revision' };
  if (!facts.follow) return { gate: 'followRevision', kind: 'read', read: 'follow' };
  return facts.follow;
};
