/**
 * Gate `fastRevert` (reconcile/remediation.ts, issue 33): converge's PATCH for a new spec whose
 * configuration equals a revision of status.history that deployed (a `git revert`) is a redeploy of that
 * revision instead: one call, no build. The PATCH rides along for the controller's fallback when the
 * platform no longer has the revision (a 404, known only by trying).
 */
import { desiredConfig } from '../../history.ts';
import { revertTarget, specAfterHistory } from '../../remediation.ts';
import type { Gate } from '../verdict.ts';
import { converge } from './converge.ts';

export const fastRevert: Gate = (facts) => {
  const { metadata, status } = facts.object;
  // No new spec since the latest revision recorded (every settled object): no revert, and converge's
  // drift, which the next gate computes, is not computed twice.
  if (!specAfterHistory(status.history ?? [], metadata.generation ?? 0)) return undefined;
  const verdict = converge(facts);
  if (verdict?.kind !== 'patch' || !facts.desired?.ok) return undefined;
  const { gate: _, ...patch } = verdict;
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
