/**
 * Gate `rolledBack` (reconcile/agentdeployment/remediation.ts, issue 33): the revision that serves is a rollback made for
 * this generation of the spec, and writes are held (converge sends nothing): Ready is reported RolledBack
 * (Stalled: kstatus Failed, Argo CD Degraded), naming both revisions, until the spec changes or a person
 * asks. With spec.verification, once the rollback's revision verified.
 */

import { writesHeld } from '../derived.ts';
import { currentRollback, rolledBackMessage } from '../remediation.ts';
import type { Gate } from '../verdict.ts';

export const rolledBack: Gate = (facts) => {
  if (facts.observation || !writesHeld(facts)) return undefined;
  // The follow verdict, once derived (follow-verdict.ts; the gate followRevision asks for it).
  const follow = facts.follow;
  if (follow?.kind !== 'ready') return undefined;
  const { spec, status } = facts.object;
  const history = status.history ?? [];
  if (currentRollback(history)?.entry.id !== follow.revision.id) return undefined;
  const v = status.verification;
  const verified =
    !!spec.verification && v?.revisionId === follow.revision.id && v.last?.outcome === 'Succeeded';
  const message = rolledBackMessage(history, verified);
  if (!message) return undefined;
  return { ...follow, gate: 'rolledBack', message, rolledBack: true };
};
