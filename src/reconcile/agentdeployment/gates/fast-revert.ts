/**
 * Gate `fastRevert` (reconcile/agentdeployment/remediation.ts, issue 33): the PATCH the drift decision asks for a new
 * spec whose configuration equals a revision of status.history that deployed (a `git revert`) is a
 * redeploy of that revision instead: one call, no build. The PATCH rides along for the controller's
 * fallback when the platform no longer has the revision (a 404, known only by trying).
 */

import { patchVerdictOf, writesHeld } from '../derived.ts';
import { desiredConfig } from '../history.ts';
import { isObserveOnly } from '../management.ts';
import { ownedDeployment } from '../owned.ts';
import { revertTarget, specAfterHistory } from '../remediation.ts';
import type { Gate } from '../verdict.ts';

export const fastRevert: Gate = (facts) => {
  const { metadata, spec, status } = facts.object;
  // No new spec since the latest revision recorded (every settled object): no revert, and the drift is
  // not derived here.
  if (!specAfterHistory(status.history ?? [], metadata.generation ?? 0)) return undefined;
  if (!facts.desired?.ok || isObserveOnly(spec)) return undefined;
  if (ownedDeployment(facts) && writesHeld(facts)) return undefined;
  if (!facts.drift) return { gate: 'fastRevert', kind: 'read', read: 'drift' };
  const patch = patchVerdictOf(facts);
  if (!patch) return undefined;
  const target = revertTarget({
    history: status.history ?? [],
    desired: desiredConfig(facts.desired.request, facts.desired.digests.secrets),
    changed: patch.changed,
    createsRevision: patch.createsRevision,
    latestRevisionId: patch.deployment.latest_revision_id ?? undefined,
    generation: metadata.generation ?? 0,
  });
  if (!target) return undefined;
  return {
    gate: 'fastRevert',
    kind: 'revert',
    deployment: patch.deployment,
    target: target.id,
    why: `the spec's configuration equals revision ${target.id}'s (a revert): redeployed it instead of a PATCH, no build`,
    patch,
  };
};
