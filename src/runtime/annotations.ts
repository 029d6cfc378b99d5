/**
 * The annotations every kind honours the same way: pause, reconcile-now, and a per-object poll interval.
 * Values a user sets are checked before they reach a timer.
 */

import { createHash } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Annotation } from '../api/names.ts';
import { formatDuration, parseDuration } from '../lib/duration.ts';
import { type Outcome, Stall } from './outcome.ts';

export const POLL_INTERVAL_BOUNDS_MS = { min: 10_000, max: 24 * 3_600_000 } as const;
/** status.lastHandledReconcileAt's limit: a longer annotation value is recorded by its digest. */
const MAX_RECORDED_REQUEST = 256;

const annotationOf = (obj: KubernetesObject, name: Annotation) => obj.metadata?.annotations?.[name];

export function pausedOutcome(obj: KubernetesObject): Outcome | undefined {
  if (annotationOf(obj, Annotation.Paused) !== 'true') return undefined;
  return {
    kind: 'paused',
    reason: 'Paused',
    message: `reconciliation paused by annotation ${Annotation.Paused}`,
  };
}

/**
 * The object's poll interval: the annotation's, else the controller's. An unparsable or out-of-range
 * annotation is a Stall naming the rule (a person fixes it), never a hot loop or a timer overflow.
 */
export function pollIntervalOf(obj: KubernetesObject, defaultMs: number): number {
  const annotated = annotationOf(obj, Annotation.PollInterval);
  if (annotated === undefined) return defaultMs;
  const parsed = parseDuration(annotated);
  const { min, max } = POLL_INTERVAL_BOUNDS_MS;
  if (parsed === undefined || parsed < min || parsed > max) return defaultMs;
  return parsed;
}

/** Throws a Stall when the poll-interval annotation is not a duration between 10s and 24h. */
export function checkPollInterval(obj: KubernetesObject): void {
  const annotated = annotationOf(obj, Annotation.PollInterval);
  if (annotated === undefined) return;
  const parsed = parseDuration(annotated);
  const { min, max } = POLL_INTERVAL_BOUNDS_MS;
  if (parsed === undefined || parsed < min || parsed > max) {
    throw new Stall(
      'InvalidAnnotation',
      `annotation ${Annotation.PollInterval} must be a duration between ${formatDuration(min)} and ${formatDuration(max)} (like 30s, 5m or 1h); got ${JSON.stringify(annotated.slice(0, 64))}`,
    );
  }
}

/**
 * Whether the reconcile-requested-at annotation carries a value not handled yet; records it as handled
 * in the status being built (by digest when it is longer than status allows).
 */
export function takeReconcileRequest(
  obj: KubernetesObject,
  status: { lastHandledReconcileAt?: string | undefined },
): boolean {
  const value = annotationOf(obj, Annotation.ReconcileRequestedAt);
  const recorded =
    value === undefined || value.length <= MAX_RECORDED_REQUEST
      ? value
      : `sha256:${createHash('sha256').update(value).digest('hex')}`;
  const requested = recorded !== undefined && recorded !== status.lastHandledReconcileAt;
  status.lastHandledReconcileAt = recorded;
  return requested;
}
