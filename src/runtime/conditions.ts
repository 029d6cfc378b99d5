/**
 * kstatus conditions in one place: Ready is always present; Reconciling and Stalled are abnormal-true
 * (present only while true). A condition's lastTransitionTime changes only when its status does, so an
 * unchanged outcome produces an identical status and no write.
 */
import type { Condition } from '../api/common.ts';
import type { ConditionType } from '../api/names.ts';
import type { Outcome } from './outcome.ts';

export type { Condition };

const MAX_MESSAGE = 1024;

export function setCondition(
  conditions: Condition[],
  next: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): Condition[] {
  const message =
    next.message.length > MAX_MESSAGE ? `${next.message.slice(0, MAX_MESSAGE - 1)}…` : next.message;
  const existing = conditions.find((c) => c.type === next.type);
  const lastTransitionTime =
    existing && existing.status === next.status ? existing.lastTransitionTime : now.toISOString();
  const updated: Condition = { ...next, message, lastTransitionTime };
  return existing ? conditions.map((c) => (c.type === next.type ? updated : c)) : [...conditions, updated];
}

export function removeCondition(conditions: Condition[], type: string): Condition[] {
  return conditions.filter((c) => c.type !== type);
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * The kstatus conditions an outcome stands for: Ready always, Reconciling and Stalled abnormal-true,
 * Paused while paused. A transient error keeps Ready as it was: the last observation still holds.
 * (Paused for a person's decision, AnalysisInconclusive, is also not Ready.)
 */
export function applyOutcome(
  conditions: Condition[],
  outcome: Outcome,
  generation: number,
  now: Date,
): Condition[] {
  const base = { observedGeneration: generation, reason: outcome.reason, message: outcome.message };
  const set = (list: Condition[], type: ConditionType, status: Condition['status']) =>
    setCondition(list, { type, status, ...base }, now);
  let next = conditions;
  switch (outcome.kind) {
    case 'ready':
      next = set(next, 'Ready', 'True');
      next = removeCondition(next, 'Reconciling');
      next = removeCondition(next, 'Stalled');
      break;
    case 'progressing':
    case 'waiting':
      next = set(next, 'Ready', 'False');
      next = set(next, 'Reconciling', 'True');
      next = removeCondition(next, 'Stalled');
      break;
    case 'stalled':
      next = set(next, 'Ready', 'False');
      next = set(next, 'Stalled', 'True');
      next = removeCondition(next, 'Reconciling');
      break;
    case 'transient':
      if (!findCondition(next, 'Ready')) next = set(next, 'Ready', 'Unknown');
      next = set(next, 'Reconciling', 'True');
      break;
    case 'paused':
      next = removeCondition(next, 'Reconciling');
      // Paused by annotation, Ready keeps its last observation; paused for a person's decision on the
      // revision (an inconclusive analysis), it is not Ready: kstatus reads InProgress, not Current.
      if (outcome.reason !== 'Paused') next = set(next, 'Ready', 'False');
      else if (!findCondition(next, 'Ready')) next = set(next, 'Ready', 'Unknown');
      break;
    case 'deleted':
      break;
  }
  return outcome.kind === 'paused' ? set(next, 'Paused', 'True') : removeCondition(next, 'Paused');
}
