/** Gate `desired`: the request the spec and its Secrets make (reconcile/agentdeployment/desired-deployment.ts); a value missing is WaitingForSecret. */
import type { Gate } from '../verdict.ts';

export const desired: Gate = (facts) => {
  const fact = facts.desired;
  if (!fact) return { gate: 'desired', kind: 'read', read: 'desired' };
  if (fact.ok) return undefined;
  return { gate: 'desired', kind: 'wait', reason: 'WaitingForSecret', message: fact.message };
};
