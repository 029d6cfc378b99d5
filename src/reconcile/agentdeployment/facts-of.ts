/**
 * The facts a pass starts from, nothing read yet: the one way the controller (gather.ts), the plan
 * (plan/agentdeployment.ts) and `--prune` (plan/prune.ts) build them, so the three decide on the same
 * value.
 */
import { takeReconcileRequest } from '../../runtime/annotations.ts';
import type { AgentDeploymentFacts, FactsObject, VerdictSettings } from './facts.ts';

export interface FactsInput {
  object: FactsObject;
  settings: VerdictSettings;
  digestKey: string | undefined;
  now: Date;
  revisionPollMs: number;
  /** False when the object's status cannot be known (a plan without a cluster). Default true. */
  statusKnown?: boolean;
  /** Nothing records what was last applied (a plan of an object not in the cluster). Default false. */
  appliedUnknown?: boolean;
}

export function agentDeploymentFacts(input: FactsInput): AgentDeploymentFacts {
  const { object } = input;
  return {
    // The facts' own copy: what the chain learns advances it (advance.ts); the status a pass writes is
    // the act stage's.
    object: { ...object, status: structuredClone(object.status) },
    settings: input.settings,
    // Asked without recording it: the controller records it once the pass gets past the pause.
    reconcileRequested: takeReconcileRequest(
      { metadata: { annotations: object.metadata.annotations } },
      { ...object.status },
    ),
    statusKnown: input.statusKnown ?? true,
    appliedUnknown: input.appliedUnknown ?? false,
    digestKey: input.digestKey,
    now: input.now,
    revisionPollMs: input.revisionPollMs,
    prepared: new Set(),
  };
}
