/**
 * The AgentDeployment reconciler: its steps (steps.ts) in the runtime's reconcile shell, with the
 * summary (summary.ts) and when to come back. Every pass starts from the object and a fresh
 * observation; status is written once, at the end, and only when it changed.
 */
import type { AgentDeployment, AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import { Annotation } from '../../api/names.ts';
import { outcomeOfControlPlaneError } from '../../controlplane/errors.ts';
import { pollIntervalOf } from '../../runtime/annotations.ts';
import type { Reconciler } from '../../runtime/controller.ts';
import { type KindShell, reconcileWithShell } from '../../runtime/reconcile-shell.ts';
import { summarizeDrift } from './program/observe-only.ts';
import { agentDeploymentSteps } from './program/steps.ts';
import { statusEvents, summarizeVerified } from './program/summary.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from './types.ts';

/** How many poll intervals a Ready, batch-polled object waits at least before a safety resync. */
export const READY_RESYNC_FACTOR = 10;

/** The share of the reconcile rate that the safety resyncs of all a replica's objects may take. */
export const RESYNC_RATE_SHARE = 0.02;

/**
 * When a Ready, batch-polled object comes back for its safety resync: 10 poll intervals, or later when
 * `objects` resynced that often would take more than RESYNC_RATE_SHARE of `reconcileRate` (per
 * second). A fixed period makes the resyncs grow with the objects held: at the defaults (a 60 s poll,
 * 50 reconciles a second) 30,000 objects resynced every 600 s would take the whole rate, and while N
 * objects converge (a time in proportion to N) the early ones came back again and again.
 */
export function readyResyncMs(pollIntervalMs: number, objects: number, reconcileRate: number): number {
  return Math.max(
    pollIntervalMs * READY_RESYNC_FACTOR,
    (objects / (reconcileRate * RESYNC_RATE_SHARE)) * 1000,
  );
}

const hasPollIntervalAnnotation = (obj: AgentDeployment) =>
  obj.metadata.annotations?.[Annotation.PollInterval] !== undefined;

export function agentDeploymentShell(
  deps: AgentDeploymentDeps,
): KindShell<AgentDeployment, AgentDeploymentStatus, AgentDeploymentPass> {
  return {
    kind: 'AgentDeployment',
    read: deps.getObject,
    ...(deps.storedObject ? { stored: deps.storedObject } : {}),
    begin: (pass) => ({ ...pass, spec: pass.obj.spec }),
    steps: agentDeploymentSteps(deps),
    classify: outcomeOfControlPlaneError,
    summarize: (pass, outcome) => {
      summarizeVerified(deps, pass, outcome);
      summarizeDrift(pass);
    },
    statusEvents,
    writeStatus: deps.writeStatus,
    recordEvent: deps.recordEvent,
    requeueAfter(pass, outcome) {
      if (outcome.kind === 'paused') return undefined;
      if (outcome.kind === 'progressing') return deps.revisionPollMs;
      // A Ready deployment the batched poll watches comes back when the poll sees it change (and on
      // any change of the object or its Secrets): re-reading it every interval would cost a reconcile
      // per object per poll. A slow resync stays as a safety net; a per-object poll interval is kept.
      if (outcome.kind === 'ready' && pass.deployment && !hasPollIntervalAnnotation(pass.obj)) {
        return readyResyncMs(deps.pollIntervalMs, deps.heldObjects(), deps.reconcileRate);
      }
      return pollIntervalOf(pass.obj, deps.pollIntervalMs);
    },
    now: deps.now,
  };
}

export function agentDeploymentReconciler(deps: AgentDeploymentDeps): Reconciler {
  const shell = agentDeploymentShell(deps);
  return (key, ctx) => reconcileWithShell(shell, key, ctx);
}
