/**
 * A DeploymentWindowPolicy's status, as the objects' passes find it: how many AgentDeployments it holds a
 * change of now and which (at most MAX_HELD_LISTED), the generation it describes, and Ready (its windows
 * read, or InvalidWindow naming the field). Pure: the writer (held-status.ts) decides when to write it.
 */
import type { Condition } from '../../api/common.ts';
import {
  type DeploymentWindowPolicy,
  type DeploymentWindowPolicyStatus,
  MAX_HELD_LISTED,
} from '../../api/deployment-window-policy.ts';
import { Reason } from '../../api/names.ts';
import { WindowError } from '../../lib/schedule/window-error.ts';
import { parseWindows } from '../../lib/schedule/windows.ts';
import { policyRef } from '../../reconcile/agentdeployment/policy-windows.ts';
import { removeCondition, setCondition } from '../../runtime/conditions.ts';

/** Why the policy's windows cannot be read (the field named), or undefined. */
function invalidWindow(policy: DeploymentWindowPolicy): string | undefined {
  try {
    parseWindows(policy.spec.windows, `${policyRef(policy.metadata.name)} windows`);
    return undefined;
  } catch (err) {
    if (err instanceof WindowError) return err.message;
    throw err;
  }
}

/** The status `policy` should show while it holds `held` (object keys, namespace/name). */
export function policyStatus(
  policy: DeploymentWindowPolicy,
  held: ReadonlySet<string>,
  now: Date,
): DeploymentWindowPolicyStatus {
  const generation = policy.metadata.generation ?? 0;
  const invalid = invalidWindow(policy);
  const listed = [...held].sort().slice(0, MAX_HELD_LISTED);
  let conditions: Condition[] = policy.status?.conditions ?? [];
  const ready = (status: 'True' | 'False', reason: string, message: string) =>
    setCondition(conditions, { type: 'Ready', status, observedGeneration: generation, reason, message }, now);
  if (invalid) {
    conditions = ready('False', Reason.InvalidWindow, `${invalid}: the objects it selects are Stalled`);
    conditions = setCondition(
      conditions,
      {
        type: 'Stalled',
        status: 'True',
        observedGeneration: generation,
        reason: Reason.InvalidWindow,
        message: invalid,
      },
      now,
    );
  } else {
    conditions = ready(
      'True',
      Reason.Succeeded,
      held.size ? `holds a change of ${held.size} AgentDeployment(s)` : 'holds no change now',
    );
    conditions = removeCondition(conditions, 'Stalled');
  }
  return {
    heldObjects: held.size,
    ...(listed.length ? { held: listed } : {}),
    observedGeneration: generation,
    conditions,
  };
}

/** Whether two statuses say the same (what a write would change). */
export const sameStatus = (a: DeploymentWindowPolicyStatus | undefined, b: DeploymentWindowPolicyStatus) =>
  JSON.stringify(comparable(a)) === JSON.stringify(comparable(b));

const comparable = (s: DeploymentWindowPolicyStatus | undefined) => ({
  heldObjects: s?.heldObjects ?? 0,
  held: s?.held ?? [],
  observedGeneration: s?.observedGeneration,
  conditions: (s?.conditions ?? []).map(({ type, status, reason, message, observedGeneration }) => ({
    type,
    status,
    reason,
    message,
    observedGeneration,
  })),
});
