/**
 * Gate `window` (issue 53): a change waits while the deployment windows hold it: the object's own
 * (spec.deploymentWindows) and those of every DeploymentWindowPolicy that selects it, under one rule (no
 * Deny window open and, if any Allow window is listed anywhere, inside one; lib/schedule/ reads the
 * time). It holds what this pass would send: a create, a PATCH or a revert (the drift decision says so)
 * and a redeploy (the follow verdict says so, once the revision is read); a revision in flight is
 * followed to the end. A rollback, automatic or by hand (the gates after and before it), goes through
 * unless a source of a closed window forbids it (window-fact.ts, rollbackHold). The override-window
 * annotation lets one change through, except a policy's window without manualOverride (the refusal is
 * said). A window the controller cannot read is InvalidWindow, nothing sent; while the controller has not
 * listed the policies (at its start, or not allowed to), a change waits too: a freeze may be in force.
 */
import { Reason } from '../../../api/names.ts';
import { writesHeld } from '../derived.ts';
import { isObserveOnly } from '../management.ts';
import type { Gate } from '../verdict.ts';
import { heldBy } from '../window-fact.ts';

export const window: Gate = (facts) => {
  const { spec } = facts.object;
  if (isObserveOnly(spec) || !facts.desired?.ok) return undefined;
  if (!facts.policies) return { gate: 'window', kind: 'read', read: 'policies' };
  const { policies } = facts;
  const selecting = policies.readable ? policies.selecting.length : 0;
  const unseen = !policies.readable && policies.hold ? policies.why : undefined;
  if (!spec.deploymentWindows?.length && !selecting && !unseen) return undefined;
  if (!facts.window) return { gate: 'window', kind: 'read', read: 'window' };
  const fact = facts.window;
  if (!fact.ok) return { gate: 'window', kind: 'stall', reason: Reason.InvalidWindow, message: fact.message };
  const open = fact.state.allowed || !!fact.override;
  if (open && !unseen) return undefined;
  if (writesHeld(facts)) return undefined;
  if (!facts.drift) return { gate: 'window', kind: 'read', read: 'drift' };
  const held = heldChange(facts.drift.kind, facts.follow?.kind);
  if (!held) return undefined;
  if (open)
    return {
      gate: 'window',
      kind: 'wait',
      reason: Reason.WindowClosed,
      message: `${held} waits: ${unseen}`,
      retryAfterMs: UNSEEN_RETRY_MS,
      windowClosed: true,
    };
  const { message, retryAfterMs } = heldBy(fact.state, facts.now, held);
  return {
    gate: 'window',
    kind: 'wait',
    reason: Reason.WindowClosed,
    message: fact.overrideRefused ? `${message}; ${fact.overrideRefused.why}` : message,
    retryAfterMs,
    windowClosed: true,
  };
};

/** When to look again while the policies are not listed yet (their listing also wakes the objects). */
const UNSEEN_RETRY_MS = 5_000;

/** What the pass would send that a closed window holds, or undefined. */
function heldChange(drift: string, follow: string | undefined): string | undefined {
  if (drift === 'create') return 'the create';
  if (drift === 'patch') return 'the change';
  if (follow === 'redeploy') return 'the redeploy';
  return undefined;
}
