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

/** A request annotation's value as status records it: its digest when longer than status allows. */
function requestValue(obj: KubernetesObject, name: Annotation): string | undefined {
  const value = annotationOf(obj, name);
  return value === undefined || value.length <= MAX_RECORDED_REQUEST
    ? value
    : `sha256:${createHash('sha256').update(value).digest('hex')}`;
}

/**
 * Whether the reconcile-requested-at annotation carries a value not handled yet; records it as handled
 * in the status being built (by digest when it is longer than status allows).
 */
export function takeReconcileRequest(
  obj: KubernetesObject,
  status: { lastHandledReconcileAt?: string | undefined },
): boolean {
  const recorded = requestValue(obj, Annotation.ReconcileRequestedAt);
  const requested = recorded !== undefined && recorded !== status.lastHandledReconcileAt;
  status.lastHandledReconcileAt = recorded;
  return requested;
}

/**
 * The redeploy-requested-at value not handled yet (as status.lastHandledRedeployAt will record it), or
 * undefined. Unlike a reconcile request it is recorded only once acted on: a request made while a
 * revision is still in progress waits for it to end.
 */
export function pendingRedeployRequest(
  obj: KubernetesObject,
  status: { lastHandledRedeployAt?: string | undefined },
): string | undefined {
  const recorded = requestValue(obj, Annotation.RedeployRequestedAt);
  return recorded !== undefined && recorded !== status.lastHandledRedeployAt ? recorded : undefined;
}
