/**
 * One state per object for the state gauge and its alerts, decided as kstatus decides (a generation not
 * yet observed is in progress, whatever the conditions say), with Paused first: a paused object is
 * nobody's incident. `reason` is the reason of the condition that decided it, so an alert can link the
 * troubleshooting entry of that reason.
 */
import type { Condition } from '../api/common.ts';

export const OBJECT_STATES = ['ready', 'stalled', 'reconciling', 'paused'] as const;
export type ObjectState = (typeof OBJECT_STATES)[number];

export interface StatedObject {
  metadata: { generation?: number | undefined };
  status?: { observedGeneration?: number | undefined; conditions?: readonly Condition[] | undefined };
}

/** kstatus' reason for an object whose controller has not observed its generation. */
export const NOT_OBSERVED_REASON = 'LatestGenerationNotObserved';

export function objectState(obj: StatedObject): { state: ObjectState; reason: string } {
  const conditions = obj.status?.conditions ?? [];
  const isTrue = (type: string) => conditions.find((c) => c.type === type && c.status === 'True');
  const paused = isTrue('Paused');
  if (paused) return { state: 'paused', reason: paused.reason };
  if (obj.status?.observedGeneration !== (obj.metadata.generation ?? 0)) {
    return { state: 'reconciling', reason: NOT_OBSERVED_REASON };
  }
  const stalled = isTrue('Stalled');
  if (stalled) return { state: 'stalled', reason: stalled.reason };
  const reconciling = isTrue('Reconciling');
  if (reconciling) return { state: 'reconciling', reason: reconciling.reason };
  const ready = conditions.find((c) => c.type === 'Ready');
  if (ready?.status === 'True') return { state: 'ready', reason: ready.reason };
  return { state: 'reconciling', reason: ready?.reason ?? NOT_OBSERVED_REASON };
}
