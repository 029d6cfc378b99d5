/**
 * The SandboxTemplate's summary, after the last step: the Drifted condition and the event drift clearing
 * stands for. Ready, Reconciling, Stalled and Paused come from the outcome in the shell.
 */
import { ConditionType, Reason } from '../../api/names.ts';
import type { Drift, SandboxTemplate, SandboxTemplateStatus } from '../../api/sandboxtemplate.ts';
import { describeDrift } from '../../reconcile/sandboxtemplate/drift.ts';
import { removeCondition, setCondition } from '../../runtime/conditions.ts';
import { conditionChange, type Pass, type PendingEvent } from '../../runtime/reconcile-shell.ts';

/** The template a pass found: its id and how it differs from the spec. */
export interface TemplateFound {
  id: string;
  drift: Drift[];
}

/** What the summary reads of a pass. */
export type SummarisedPass = Pick<
  Pass<SandboxTemplate, SandboxTemplateStatus>,
  'status' | 'generation' | 'decidedAt'
> & {
  found?: TemplateFound | undefined;
};

export const driftMessage = (id: string, drift: readonly Drift[]) =>
  `template ${id} differs from the spec: ${describeDrift(drift)}`;

/**
 * The Drifted condition: True with the fields, False when in sync. A pass that found nothing removes it,
 * unless status still names a template (the pass ended before the listing, e.g. waiting for a Secret).
 */
export function summarizeDrift(pass: SummarisedPass): void {
  const { status } = pass;
  const conditions = status.conditions ?? [];
  if (!pass.found) {
    if (!status.templateId) status.conditions = removeCondition(conditions, ConditionType.Drifted);
    return;
  }
  const { id, drift } = pass.found;
  status.conditions = setCondition(
    conditions,
    drift.length > 0
      ? {
          type: ConditionType.Drifted,
          status: 'True',
          observedGeneration: pass.generation,
          reason: Reason.DriftDetected,
          message: driftMessage(id, drift),
        }
      : {
          type: ConditionType.Drifted,
          status: 'False',
          observedGeneration: pass.generation,
          reason: Reason.InSync,
          message: 'the template matches the spec',
        },
    pass.decidedAt,
  );
}

/** Drift appearing is the Stalled condition's Warning (the shell's); drift clearing is a Normal event. */
export function statusEvents(before: SandboxTemplateStatus, after: SandboxTemplateStatus): PendingEvent[] {
  const drifted = conditionChange(before, after, ConditionType.Drifted);
  if (drifted?.was?.status === 'True' && drifted.now?.status === 'False') {
    return [{ type: 'Normal', reason: Reason.InSync, message: 'the template matches the spec again' }];
  }
  return [];
}
