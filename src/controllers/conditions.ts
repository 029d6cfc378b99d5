/**
 * kstatus conditions in one place: Ready is always present; Reconciling and Stalled are abnormal-true
 * (present only while true). A condition's lastTransitionTime changes only when its status does, so an
 * unchanged outcome produces an identical status and no write.
 */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

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
