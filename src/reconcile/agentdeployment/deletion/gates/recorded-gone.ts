/**
 * Gate `recordedGone`: the recorded id is read. Missing under other credentials is CredentialsChanged (a
 * person must settle it: it cannot be deleted from here); missing, it is gone: release.
 */
import { credentialsChangedMessage } from '../../ownership.ts';
import { recordedIdOf, resolvedCredentials } from '../facts.ts';
import type { DeletionGate } from '../verdict.ts';

export const recordedGone: DeletionGate = (f) => {
  if (f.before === undefined) return { kind: 'read', read: 'before' };
  if (f.before !== 'missing') return undefined;
  const { recordedTenant: then } = f;
  const { tenant } = resolvedCredentials(f);
  if (then !== undefined && tenant !== undefined && then !== tenant) {
    return {
      kind: 'stall',
      reason: 'CredentialsChanged',
      message: credentialsChangedMessage(recordedIdOf(f), then, tenant, 'it cannot be deleted from here'),
    };
  }
  return { kind: 'release', how: 'gone' };
};
