/**
 * One reconcile shell for every kind (after Flux's sub-reconcilers with one deferred summary): a pass
 * reads the object, runs the kind's steps in order until one ends it with an Outcome, then, in one place,
 * summarises the outcome into conditions, emits the events that condition and status changes stand for,
 * writes the status once if it changed, and says when to come back. Steps decide; they never write
 * status or emit condition events themselves.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { EventReason, Reason } from '../api/names.ts';
import { sameJson } from '../lib/canonical-json.ts';
import type { Condition } from './conditions.ts';
import { applyOutcome, findCondition } from './conditions.ts';
import type { ReconcileContext, ReconcileResult } from './controller.ts';
import type { EventType } from './events.ts';
import { splitKey } from './keys.ts';
import { type ErrorClassifier, type Outcome, outcomeOf, retryAfterOf } from './outcome.ts';
import { WriteFenced } from './write-fence.ts';

export interface ObjectStatus {
  conditions?: Condition[] | undefined;
  observedGeneration?: number | undefined;
}

export interface ReconciledObject<S extends ObjectStatus> extends KubernetesObject {
  metadata: NonNullable<KubernetesObject['metadata']> & { name: string };
  status?: S | undefined;
}

export interface PendingEvent {
  type: EventType;
  /** An action's reason, or a condition's for the events that mark its changes: any other is a compile error. */
  reason: EventReason | Reason;
  message: string;
}

/** What every step sees: the object, the status being built, and the pass's own context. */
export interface Pass<O extends ReconciledObject<S>, S extends ObjectStatus> {
  readonly key: string;
  readonly obj: O;
  readonly generation: number;
  /** The status this pass will write (once, at the end, if it changed). */
  status: S;
  readonly log: Logger;
  /** Aborted when the controller stops; passed to every Kubernetes call. */
  readonly signal: AbortSignal;
  /** Aborted as `signal` or at the pass deadline; passed to every call to a tenant's servers. */
  readonly deadline: AbortSignal;
  readonly now: Date;
  /**
   * When the steps reached the outcome (set by the shell before the summary): the time conditions carry,
   * so a Ready earned by a smoke run never predates that run.
   */
  decidedAt: Date;
  /** Events for actions taken (created, patched, ...), emitted by the shell after the summary. */
  readonly events: PendingEvent[];
  /** A step may ask for the next pass sooner than the outcome's default. */
  requeueAfterMs?: number;
  /**
   * The object as a status write of this pass's own left it (a step that must make something durable
   * before a call, the create guard's mark): the final write is computed against it, so a field that
   * write added and the pass removed since is removed from what is stored too.
   */
  written?: O;
}

/** One ordered step: returns an Outcome to end the pass, or nothing to let the next step run. */
export interface Step<P> {
  name: string;
  run(pass: P): Promise<Outcome | undefined> | Outcome | undefined;
}

export interface KindShell<O extends ReconciledObject<S>, S extends ObjectStatus, P extends Pass<O, S>> {
  kind: string;
  /** The object as this controller last knew it (cache, or its own newer write). */
  read(namespace: string, name: string): O | undefined;
  /**
   * The object as stored, when read() showed it with a status a failed write left in memory: whether
   * to write is judged against what is stored, so that status is written as soon as writes succeed.
   */
  stored?(obj: O): O | undefined;
  /** The kind's pass state on top of the common one. */
  begin(pass: Pass<O, S>): P;
  steps: readonly Step<P>[];
  /** Control-plane and other errors the kind knows how to read. */
  classify: ErrorClassifier;
  /** Every condition the kind owns besides Ready/Reconciling/Stalled/Paused, and other derived status. */
  summarize?(pass: P, outcome: Outcome): void;
  /** Events that status changes stand for (a revision deployed, drift appeared...), beyond problems. */
  statusEvents?(before: S, after: S, outcome: Outcome): PendingEvent[];
  /** Whether a status change is worth a write (e.g. a sync time alone is not). */
  worthWriting?(before: S, after: S): boolean;
  writeStatus(obj: O, status: S, signal: AbortSignal): Promise<unknown>;
  recordEvent(obj: O, event: PendingEvent): void;
  /** When to come back after a pass that ended with this outcome; undefined: only on change. */
  requeueAfter(pass: P, outcome: Outcome): number | undefined;
  now(): Date;
}

export async function reconcileWithShell<
  O extends ReconciledObject<S>,
  S extends ObjectStatus,
  P extends Pass<O, S>,
>(shell: KindShell<O, S, P>, key: string, ctx: ReconcileContext): Promise<ReconcileResult> {
  const { namespace, name } = splitKey(key);
  const obj = shell.read(namespace, name);
  if (!obj) return {};
  const before = (obj.status ?? {}) as S;
  const startedAt = shell.now();
  const pass = shell.begin({
    key,
    obj,
    generation: obj.metadata.generation ?? 0,
    status: structuredClone(before),
    log: ctx.log,
    signal: ctx.signal,
    deadline: ctx.deadline,
    now: startedAt,
    decidedAt: startedAt,
    events: [],
  });

  let outcome: Outcome | undefined;
  let failure: unknown;
  try {
    for (const step of shell.steps) {
      outcome = await step.run(pass);
      if (outcome) break;
    }
    if (!outcome) throw new Error(`${shell.kind}: no step ended the pass`);
  } catch (err) {
    // A write this replica may no longer send (write-fence.ts): nothing was sent, and the status is
    // the holder's to write.
    if (err instanceof WriteFenced) throw err;
    outcome = outcomeOf(err, shell.classify);
    if (outcome.kind === 'transient') failure = err;
    else if (outcome.kind === 'waiting') pass.requeueAfterMs ??= retryAfterOf(err);
  }
  if (outcome.kind === 'deleted') {
    emit(shell, pass, pass.events);
    return {};
  }

  // An object paused by annotation has not been reconciled at this generation: status must not claim it
  // was. One the controller paused for a person's decision (an inconclusive analysis) has been.
  if (outcome.kind !== 'paused' || outcome.reason !== 'Paused')
    pass.status.observedGeneration = pass.generation;
  pass.decidedAt = shell.now();
  pass.status.conditions = applyOutcome(
    pass.status.conditions ?? [],
    outcome,
    pass.generation,
    pass.decidedAt,
  );
  shell.summarize?.(pass, outcome);
  emit(shell, pass, [
    ...pass.events,
    ...problemEvents(before, pass.status, outcome),
    ...(shell.statusEvents?.(before, pass.status, outcome) ?? []),
  ]);
  for (const e of pass.events) pass.log.info({ reason: e.reason }, e.message);

  const after = JSON.parse(JSON.stringify(pass.status)) as S;
  const base = pass.written ?? obj;
  const stored = ((pass.written ? base : (shell.stored?.(obj) ?? obj)).status ?? {}) as S;
  const changed = shell.worthWriting ? shell.worthWriting(stored, after) : !sameJson(stored, after);
  if (changed) await shell.writeStatus(base, after, pass.signal);
  if (failure) throw failure;
  const requeue = pass.requeueAfterMs ?? shell.requeueAfter(pass, outcome);
  if (requeue === undefined) return {};
  return outcome.kind === 'progressing'
    ? { requeueAfterMs: requeue, continuing: true }
    : { requeueAfterMs: requeue };
}

function emit<O extends ReconciledObject<S>, S extends ObjectStatus, P extends Pass<O, S>>(
  shell: KindShell<O, S, P>,
  pass: P,
  events: readonly PendingEvent[],
) {
  for (const e of events) shell.recordEvent(pass.obj, e);
}

/**
 * A Warning event when a problem first appears or changes (the condition that carries it got another
 * reason or message), never on every retry: Stalled for a stall, Reconciling for waiting and transient.
 */
export function problemEvents(before: ObjectStatus, after: ObjectStatus, outcome: Outcome): PendingEvent[] {
  if (outcome.kind !== 'stalled' && outcome.kind !== 'waiting' && outcome.kind !== 'transient') return [];
  const type = outcome.kind === 'stalled' ? 'Stalled' : 'Reconciling';
  const was = findCondition(before.conditions, type);
  const now = findCondition(after.conditions, type);
  if (!now || (was?.reason === now.reason && was.message === now.message)) return [];
  // The condition was set from this outcome (applyOutcome): its reason is the outcome's, typed.
  return [{ type: 'Warning', reason: outcome.reason, message: now.message }];
}

/** The condition's change from before to after, when its status, reason or message moved. */
export function conditionChange(
  before: ObjectStatus,
  after: ObjectStatus,
  type: string,
): { was: Condition | undefined; now: Condition | undefined } | undefined {
  const was = findCondition(before.conditions, type);
  const now = findCondition(after.conditions, type);
  if (was?.status === now?.status && was?.reason === now?.reason && was?.message === now?.message) {
    return undefined;
  }
  return { was, now };
}
