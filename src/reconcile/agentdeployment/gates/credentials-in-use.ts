/**
 * Gate `credentialsInUse`: the credentials Secret the object names gets the in-use finalizer (it must
 * outlive the object: a namespace deletion removes both at once), and the namespace's Secrets no object
 * names any more lose it. Kubernetes-side bookkeeping, once per pass; a plan assumes it made.
 */
import type { Gate } from '../verdict.ts';

export const credentialsInUse: Gate = (facts) =>
  facts.prepared.has('credentialsInUse')
    ? undefined
    : { gate: 'credentialsInUse', kind: 'prepare', prepare: 'credentialsInUse' };
