/**
 * Gate `credentials`: the credentials are read (the Secrets within their budgets, the credentials, the
 * other objects' claims: agentdeployment/deletion-credentials.ts). None usable: the wait or the stall
 * the AgentDeployment chain gives for them, the finalizer kept.
 */
import type { DeletionGate } from '../verdict.ts';

export const credentials: DeletionGate = (f) => {
  const creds = f.credentials;
  if (!creds) return { kind: 'read', read: 'credentials' };
  if (creds.ok) return undefined;
  const { reason, message } = creds;
  if (creds.kind === 'stall') return { kind: 'stall', reason, message };
  return { kind: 'wait', why: 'credentials', reason, message };
};
