/**
 * Gate `undo`: a rollback by hand (`kubectl agd undo`, the undo-requested-at annotation), once per value.
 * The revision undo-to-revision names, or else the newest revision of status.history that deployed other
 * than the active one, is redeployed as a rollback: recorded so in the history, then held as RolledBack
 * until the spec changes or a person asks (the same hold as an automatic rollback), so that GitOps and the
 * undo never fight. What cannot be undone is refused (UndoRefused), and the request counts as handled.
 * A closed deployment window whose source forbids rollbacks (allowRollback false) holds it: WindowClosed,
 * the request kept for when it opens.
 */
import { Annotation, Reason } from '../../../api/names.ts';
import type { HistoryEntry } from '../../../api/remediation.ts';
import { isObserveOnly } from '../management.ts';
import { ownedDeployment } from '../owned.ts';
import type { Gate } from '../verdict.ts';
import { rollbackHold } from '../window-fact.ts';

export const undo: Gate = (facts) => {
  const { metadata, spec, status } = facts.object;
  const requested = metadata.annotations?.[Annotation.UndoRequestedAt];
  if (requested === undefined || requested === status.lastHandledUndoAt) return undefined;
  const asked = `annotation ${Annotation.UndoRequestedAt}=${requested}`;
  const refuse = (why: string) =>
    ({
      gate: 'undo',
      kind: 'stall',
      reason: Reason.UndoRefused,
      message: `${asked}: ${why}`,
      undone: requested,
    }) as const;
  if (isObserveOnly(spec)) return refuse('an observe-only object sends nothing to the platform');
  const deployment = ownedDeployment(facts);
  if (!deployment?.latest_revision_id)
    return refuse('there is no deployment with a revision to go back from');
  const named = metadata.annotations?.[Annotation.UndoToRevision];
  const target = undoTarget(status.history ?? [], deployment.active_revision_id ?? undefined, named);
  if (!target)
    return refuse(
      named
        ? `revision ${named} is not one of status.history that deployed (kubectl agd history lists them)`
        : 'status.history has no other revision that deployed',
    );
  const held = rollbackHold(facts, 'undo');
  if (held) return held;
  return {
    gate: 'undo',
    kind: 'rollback',
    deployment,
    from: deployment.latest_revision_id,
    to: target.id,
    message: `${asked}: rolling back by hand from revision ${deployment.latest_revision_id} to ${target.id}`,
    undone: requested,
  };
};

/** The revision an undo goes back to: the one named, or the newest other that deployed (not pruned). */
export function undoTarget(
  history: readonly HistoryEntry[],
  activeRevisionId: string | undefined,
  named: string | undefined,
): HistoryEntry | undefined {
  const deployed = (e: HistoryEntry) => e.outcome === 'Deployed' && !e.pruned;
  if (named) return history.find((e) => e.id === named && deployed(e));
  return history.find((e) => deployed(e) && e.id !== activeRevisionId);
}
