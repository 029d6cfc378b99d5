/**
 * Gate `credentials`: the credentials the object calls with (reconcile/credentials.ts). A Secret missing
 * or unusable is waiting (WaitingForCredentials, InvalidCredentials); one naming a control plane not on
 * the administrator's list is Stalled (ControlPlaneNotAllowed).
 */
import type { Reason } from '../../../api/names.ts';
import type { CredentialsFact } from '../facts.ts';
import type { Verdict } from '../verdict.ts';

/** Shared by both kinds: it reads only the credentials fact. */
export const credentials = (facts: {
  credentials?: CredentialsFact | undefined;
}): (Verdict & { kind: 'read' | 'wait' | 'stall' }) | undefined => {
  const fact = facts.credentials;
  if (!fact) return { gate: 'credentials', kind: 'read', read: 'credentials' };
  if (fact.ok) return undefined;
  return { gate: 'credentials', kind: fact.kind, reason: fact.reason as Reason, message: fact.message };
};
