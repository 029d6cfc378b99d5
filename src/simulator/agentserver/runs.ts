/**
 * Runs: creation with the multitask strategies, one executing run per thread (others wait as
 * `pending`), completion (status, thread status, result), joiners and stream listeners.
 */
import { randomUUID } from 'node:crypto';
import { HttpError } from '../http.ts';
import { delayOf, GraphError, nextAfter, runEchoGraph } from './graph.ts';
import {
  applyUpdate,
  type Checkpoint,
  latestValues,
  type StoredThread,
  type ThreadStore,
  type Values,
} from './threads.ts';

export const RUN_STATUSES = ['pending', 'running', 'error', 'success', 'timeout', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const MULTITASK_STRATEGIES = ['reject', 'interrupt', 'rollback', 'enqueue'] as const;
export type MultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number];

export interface RunError {
  error: string;
  message: string;
}

/** The Run record as the API shows it. */
export interface Run {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus;
  metadata: Record<string, unknown>;
  kwargs: Record<string, unknown>;
  multitask_strategy: MultitaskStrategy;
}

export type RunEvent =
  | { kind: 'start'; run: Run }
  | { kind: 'checkpoint'; node: string; update: Values; checkpoint: Checkpoint }
  | { kind: 'end'; run: Run; error: RunError | null; values: Values };

export type RunListener = (event: RunEvent) => void;

/** What a finished run leaves behind, for join, wait and the webhook. */
export interface RunOutcome {
  run: Run;
  values: Values;
  error: RunError | null;
  startedAt: string | null;
  endedAt: string;
  webhook: string | null;
}

interface RunEntry {
  run: Run;
  graphId: string;
  webhook: string | null;
  stateless: boolean;
  listeners: Set<RunListener>;
  startedAt: string | null;
  checkpointsBefore: number;
  abort: AbortController;
  timer?: NodeJS.Timeout;
  outcome?: RunOutcome;
  /** Resolves when the run is finished or rolled back. */
  done: Promise<void>;
  settle: () => void;
}

export interface RunSettings {
  delayMs: number;
  slowMs: number;
  fail: boolean;
  /** Runs after this many raise, as `fail` makes them. */
  degradeAfterRuns: number | undefined;
  errorMarker: string;
  errorMessage: string;
  runTimeoutMs: number | undefined;
}

export interface NewRun {
  assistantId: string;
  graphId: string;
  input: Values | null;
  config: Record<string, unknown>;
  metadata: Record<string, unknown>;
  multitaskStrategy: MultitaskStrategy;
  webhook: string | null;
  streamMode: string[];
  stateless: boolean;
}

const TERMINAL: ReadonlySet<RunStatus> = new Set(['error', 'success', 'timeout', 'interrupted']);
const now = () => new Date().toISOString();

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL.has(status);
}

export class RunEngine {
  readonly #threads: ThreadStore;
  readonly #settings: () => RunSettings;
  readonly #onComplete: (outcome: RunOutcome) => void;
  /** Per thread, oldest first. */
  readonly #runs = new Map<string, RunEntry[]>();
  /** Runs started since the engine was made or its count reset: what `degradeAfterRuns` counts. */
  #started = 0;

  constructor(deps: {
    threads: ThreadStore;
    settings: () => RunSettings;
    onComplete: (outcome: RunOutcome) => void;
  }) {
    this.#threads = deps.threads;
    this.#settings = deps.settings;
    this.#onComplete = deps.onComplete;
  }

  /** Creates a run; a busy thread is handled by the run's multitask strategy. */
  create(thread: StoredThread, request: NewRun, listener?: RunListener): Run {
    const entries = this.#entries(thread.thread_id);
    const inFlight = entries.filter((e) => !isTerminal(e.run.status));
    if (inFlight.length > 0) {
      switch (request.multitaskStrategy) {
        case 'reject':
          throw new HttpError(
            409,
            'Thread is already running a task. Wait for it to finish or choose a different multitask strategy.',
          );
        case 'interrupt':
          for (const entry of inFlight) this.#finish(entry, 'interrupted', null);
          break;
        case 'rollback':
          this.#rollback(thread, inFlight);
          break;
        case 'enqueue':
          break;
      }
    }
    const at = now();
    const runId = randomUUID();
    const configurable = {
      ...((request.config.configurable as Record<string, unknown> | undefined) ?? {}),
      thread_id: thread.thread_id,
      run_id: runId,
      assistant_id: request.assistantId,
      graph_id: request.graphId,
    };
    const run: Run = {
      run_id: runId,
      thread_id: thread.thread_id,
      assistant_id: request.assistantId,
      created_at: at,
      updated_at: at,
      status: 'pending',
      metadata: request.metadata,
      kwargs: {
        input: request.input,
        config: { ...request.config, configurable },
        metadata: request.metadata,
        stream_mode: request.streamMode,
        webhook: request.webhook,
        temporary: request.stateless,
      },
      multitask_strategy: request.multitaskStrategy,
    };
    let settle = () => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const entry: RunEntry = {
      run,
      graphId: request.graphId,
      webhook: request.webhook,
      stateless: request.stateless,
      listeners: new Set(listener ? [listener] : []),
      startedAt: null,
      checkpointsBefore: thread.checkpoints.length,
      abort: new AbortController(),
      done,
      settle,
    };
    this.#runs.set(thread.thread_id, [...this.#entries(thread.thread_id), entry]);
    this.#threads.setStatus(thread, 'busy');
    this.#startNext(thread.thread_id);
    return run;
  }

  get(threadId: string, runId: string): Run | undefined {
    return this.#entry(threadId, runId)?.run;
  }

  /** Newest first. */
  list(threadId: string): Run[] {
    return this.#entries(threadId)
      .map((e) => e.run)
      .reverse();
  }

  hasRunInFlight(threadId: string): boolean {
    return this.#entries(threadId).some((e) => !isTerminal(e.run.status));
  }

  /** Waits until the run is finished; undefined when it is unknown or was rolled back. */
  async join(threadId: string, runId: string): Promise<RunOutcome | undefined> {
    const entry = this.#entry(threadId, runId);
    if (!entry) return undefined;
    await entry.done;
    return entry.outcome;
  }

  /** Listens to a run's events until it ends; returns the unsubscribe function. */
  listen(threadId: string, runId: string, listener: RunListener): () => void {
    const entry = this.#entry(threadId, runId);
    entry?.listeners.add(listener);
    return () => entry?.listeners.delete(listener);
  }

  /**
   * Cancels a run: `interrupt` ends it as `interrupted` keeping its output, `rollback` deletes it and its
   * output. A finished run is left as it is. False when the run is unknown.
   */
  cancel(thread: StoredThread, runId: string, action: 'interrupt' | 'rollback'): boolean {
    const entry = this.#entry(thread.thread_id, runId);
    if (!entry) return false;
    if (isTerminal(entry.run.status)) return true;
    if (action === 'rollback') {
      this.#rollback(thread, [entry]);
      if (!this.hasRunInFlight(thread.thread_id)) this.#threads.setStatus(thread, 'idle');
      this.#startNext(thread.thread_id);
    } else {
      this.#finish(entry, 'interrupted', null);
    }
    return true;
  }

  /** Stops a thread's runs and forgets them. */
  forgetThread(threadId: string): void {
    for (const entry of this.#entries(threadId)) this.#stop(entry);
    this.#runs.delete(threadId);
  }

  runsStarted(): number {
    return this.#started;
  }

  resetRunCount(): void {
    this.#started = 0;
  }

  close(): void {
    for (const threadId of [...this.#runs.keys()]) this.forgetThread(threadId);
  }

  #entries(threadId: string): RunEntry[] {
    return this.#runs.get(threadId) ?? [];
  }

  #entry(threadId: string, runId: string): RunEntry | undefined {
    return this.#entries(threadId).find((e) => e.run.run_id === runId);
  }

  #startNext(threadId: string): void {
    const entries = this.#entries(threadId);
    if (entries.some((e) => e.run.status === 'running')) return;
    const next = entries.find((e) => e.run.status === 'pending');
    if (next) void this.#execute(next);
  }

  async #execute(entry: RunEntry): Promise<void> {
    const thread = this.#threads.getAny(entry.run.thread_id);
    if (!thread) return;
    const settings = this.#settings();
    this.#started += 1;
    const degraded = settings.degradeAfterRuns !== undefined && this.#started > settings.degradeAfterRuns;
    entry.run.status = 'running';
    entry.run.updated_at = now();
    entry.startedAt = entry.run.updated_at;
    entry.checkpointsBefore = thread.checkpoints.length;
    thread.metadata.graph_id ??= entry.graphId;
    thread.metadata.assistant_id ??= entry.run.assistant_id;
    this.#emit(entry, { kind: 'start', run: entry.run });
    if (settings.runTimeoutMs !== undefined) {
      const limit = settings.runTimeoutMs;
      entry.timer = setTimeout(() => {
        this.#finish(entry, 'timeout', { error: 'TimeoutError', message: `Run timed out after ${limit} ms` });
      }, limit);
      entry.timer.unref();
    }

    const commit = (node: string, update: Values | null, next: string[], source: 'input' | 'loop') => {
      const checkpoint = this.#threads.commit(thread, {
        values: applyUpdate(latestValues(thread), update, ['body', 'input']),
        writes: { [node]: update },
        source,
        next,
        graphId: entry.graphId,
        runId: entry.run.run_id,
      });
      this.#emit(entry, { kind: 'checkpoint', node, update: update ?? {}, checkpoint });
    };
    try {
      const input = entry.run.kwargs.input as Values | null;
      if (input !== null) commit('__start__', input, nextAfter('__start__'), 'input');
      const configurable = (entry.run.kwargs.config as { configurable: Record<string, unknown> })
        .configurable;
      await runEchoGraph({
        slowMs: settings.slowMs,
        delayMs: (node) => delayOf(configurable, node) ?? settings.delayMs,
        fail: settings.fail || degraded,
        errorMarker: settings.errorMarker,
        errorMessage: settings.errorMessage,
        signal: entry.abort.signal,
        values: () => latestValues(thread),
        commit: (node, update, next) => {
          // A run stopped by interrupt, rollback or timeout writes nothing more.
          if (!isTerminal(entry.run.status) && !entry.abort.signal.aborted)
            commit(node, update, next, 'loop');
        },
      });
      this.#finish(entry, 'success', null);
    } catch (error) {
      if (entry.abort.signal.aborted) return;
      const failure =
        error instanceof GraphError
          ? { error: error.error, message: error.message }
          : { error: 'Error', message: error instanceof Error ? error.message : String(error) };
      this.#finish(entry, 'error', failure);
    }
  }

  /** Ends a run with its final status, then lets the thread's next pending run start. */
  #finish(entry: RunEntry, status: RunStatus, error: RunError | null): void {
    if (isTerminal(entry.run.status)) return;
    this.#stop(entry);
    const thread = this.#threads.getAny(entry.run.thread_id);
    entry.run.status = status;
    entry.run.updated_at = now();
    const values = thread ? latestValues(thread) : {};
    entry.outcome = {
      run: entry.run,
      values,
      error,
      startedAt: entry.startedAt,
      endedAt: entry.run.updated_at,
      webhook: entry.webhook,
    };
    if (thread && !this.hasRunInFlight(thread.thread_id)) {
      this.#threads.setStatus(thread, threadStatusAfter(status));
    }
    this.#emit(entry, { kind: 'end', run: entry.run, error, values });
    entry.listeners.clear();
    entry.settle();
    this.#onComplete(entry.outcome);
    if (entry.stateless) {
      this.#threads.delete(entry.run.thread_id);
      this.#runs.delete(entry.run.thread_id);
      return;
    }
    this.#startNext(entry.run.thread_id);
  }

  /** Rollback: the in-flight runs and everything they wrote are gone. */
  #rollback(thread: StoredThread, inFlight: RunEntry[]): void {
    const started = inFlight.filter((e) => e.run.status === 'running');
    const keep = Math.min(thread.checkpoints.length, ...started.map((e) => e.checkpointsBefore));
    this.#threads.truncate(thread, keep);
    for (const entry of inFlight) {
      this.#stop(entry);
      entry.listeners.clear();
      entry.settle();
    }
    this.#runs.set(
      thread.thread_id,
      this.#entries(thread.thread_id).filter((e) => !inFlight.includes(e)),
    );
  }

  #stop(entry: RunEntry): void {
    entry.abort.abort();
    if (entry.timer) clearTimeout(entry.timer);
  }

  #emit(entry: RunEntry, event: RunEvent): void {
    for (const listener of entry.listeners) listener(event);
  }
}

function threadStatusAfter(status: RunStatus) {
  if (status === 'success') return 'idle' as const;
  if (status === 'interrupted') return 'interrupted' as const;
  return 'error' as const;
}
