/**
 * Threads and their checkpoints, in memory. Each write to a thread's state is a checkpoint (step,
 * source, writes, parents), so the state at any checkpoint and the history can be answered.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { parseOrFail } from '../validation.ts';
import { addMessages, InputMessageSchema, type Message, toMessage } from './messages.ts';

export const THREAD_STATUSES = ['idle', 'busy', 'interrupted', 'error'] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];
export type Values = Record<string, unknown>;
export type CheckpointSource = 'input' | 'loop' | 'update' | 'fork';

export interface Checkpoint {
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  values: Values;
  next: string[];
  source: CheckpointSource;
  step: number;
  writes: Record<string, unknown> | null;
  created_at: string;
  graph_id: string | null;
  run_id: string | null;
}

export interface StoredThread {
  thread_id: string;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
  status: ThreadStatus;
  /** Oldest first. */
  checkpoints: Checkpoint[];
  /** The temporary thread of a stateless run: not listed, not readable. */
  hidden: boolean;
  seq: number;
}

export const SuperstepSchema = z.object({
  updates: z.array(z.object({ values: z.record(z.string(), z.unknown()).nullable(), as_node: z.string() })),
});
export type Superstep = z.infer<typeof SuperstepSchema>;

export const SORT_BY = ['thread_id', 'status', 'created_at', 'updated_at'] as const;
export const ThreadSearchSchema = z
  .object({
    status: z.enum(THREAD_STATUSES).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    values: z.record(z.string(), z.unknown()).optional(),
    ids: z.array(z.string()).optional(),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
    sort_by: z.enum(SORT_BY).default('created_at'),
    sort_order: z.enum(['asc', 'desc']).default('desc'),
  })
  .loose();
export type ThreadSearch = z.infer<typeof ThreadSearchSchema>;

const now = () => new Date().toISOString();

/** Applies a state update: `messages` goes through the messages reducer, other keys are replaced. */
export function applyUpdate(values: Values, update: Values | null, loc: Array<string | number>): Values {
  const next: Values = structuredClone(values);
  for (const [key, value] of Object.entries(update ?? {})) {
    if (key !== 'messages') {
      next[key] = structuredClone(value);
      continue;
    }
    const list = Array.isArray(value) ? value : [value];
    const incoming = list.map((item, i) =>
      toMessage(parseOrFail(InputMessageSchema, item, [...loc, 'messages', i])),
    );
    next.messages = addMessages((next.messages as Message[] | undefined) ?? [], incoming);
  }
  return next;
}

export class ThreadStore {
  readonly #threads = new Map<string, StoredThread>();
  readonly #nextAfter: (node: string) => string[];
  #seq = 0;

  /** nextAfter: the graph's nodes that run after the named one (for supersteps' `next`). */
  constructor(nextAfter: (node: string) => string[]) {
    this.#nextAfter = nextAfter;
  }

  create(options: {
    threadId?: string;
    metadata?: Record<string, unknown>;
    supersteps?: Superstep[];
    hidden?: boolean;
  }): StoredThread {
    const at = now();
    const thread: StoredThread = {
      thread_id: options.threadId ?? randomUUID(),
      created_at: at,
      updated_at: at,
      metadata: structuredClone(options.metadata ?? {}),
      status: 'idle',
      checkpoints: [],
      hidden: options.hidden ?? false,
      seq: this.#seq++,
    };
    // The thread is stored only after every superstep applied, so a bad one creates nothing.
    const graphId = typeof thread.metadata.graph_id === 'string' ? thread.metadata.graph_id : null;
    (options.supersteps ?? []).forEach((superstep, index) => {
      let values = latestValues(thread);
      const writes: Record<string, unknown> = {};
      for (const [u, update] of superstep.updates.entries()) {
        values = applyUpdate(values, update.values, ['body', 'supersteps', index, 'updates', u, 'values']);
        writes[update.as_node] = update.values;
      }
      const lastNode = superstep.updates.at(-1)?.as_node;
      this.commit(thread, {
        values,
        writes,
        source: sourceOf(superstep),
        next: lastNode === undefined ? [] : this.#nextAfter(lastNode),
        graphId,
        runId: null,
      });
    });
    this.#threads.set(thread.thread_id, thread);
    return thread;
  }

  get(threadId: string): StoredThread | undefined {
    const thread = this.#threads.get(threadId);
    return thread && !thread.hidden ? thread : undefined;
  }

  /** Includes hidden threads: for the run machinery. */
  getAny(threadId: string): StoredThread | undefined {
    return this.#threads.get(threadId);
  }

  delete(threadId: string): boolean {
    return this.#threads.delete(threadId);
  }

  /** An independent thread whose state and history equal the original's now. */
  copy(source: StoredThread): StoredThread {
    const at = now();
    const thread: StoredThread = {
      ...structuredClone(source),
      thread_id: randomUUID(),
      created_at: at,
      updated_at: at,
      status: 'idle',
      hidden: false,
      seq: this.#seq++,
    };
    this.#threads.set(thread.thread_id, thread);
    return thread;
  }

  search(filter: ThreadSearch): StoredThread[] {
    const matching = [...this.#threads.values()].filter(
      (t) =>
        !t.hidden &&
        (filter.status === undefined || t.status === filter.status) &&
        (filter.ids === undefined || filter.ids.includes(t.thread_id)) &&
        containsAll(t.metadata, filter.metadata) &&
        containsAll(latestValues(t), filter.values),
    );
    const direction = filter.sort_order === 'asc' ? 1 : -1;
    matching.sort((a, b) => {
      const key = filter.sort_by;
      const order = a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.seq - b.seq;
      return order * direction;
    });
    return matching.slice(filter.offset, filter.offset + filter.limit);
  }

  /** Appends a checkpoint after the thread's latest one. */
  commit(
    thread: StoredThread,
    write: {
      values: Values;
      writes: Record<string, unknown> | null;
      source: CheckpointSource;
      next: string[];
      graphId: string | null;
      runId: string | null;
    },
  ): Checkpoint {
    const parent = thread.checkpoints.at(-1);
    const checkpoint: Checkpoint = {
      checkpoint_id: randomUUID(),
      parent_checkpoint_id: parent?.checkpoint_id ?? null,
      values: structuredClone(write.values),
      next: write.next,
      source: write.source,
      step: parent ? parent.step + 1 : -1,
      writes: write.writes === null ? null : structuredClone(write.writes),
      created_at: now(),
      graph_id: write.graphId,
      run_id: write.runId,
    };
    thread.checkpoints.push(checkpoint);
    thread.updated_at = checkpoint.created_at;
    return checkpoint;
  }

  /** Drops the checkpoints after the first `count` ones (a rolled-back run's writes). */
  truncate(thread: StoredThread, count: number): void {
    thread.checkpoints.splice(count);
    thread.updated_at = now();
  }

  setStatus(thread: StoredThread, status: ThreadStatus): void {
    thread.status = status;
    thread.updated_at = now();
  }
}

function sourceOf(superstep: Superstep): CheckpointSource {
  const nodes = superstep.updates.map((u) => u.as_node);
  if (nodes.length > 0 && nodes.every((n) => n === '__input__')) return 'input';
  if (nodes.length > 0 && nodes.every((n) => n === '__start__')) return 'loop';
  return 'update';
}

function containsAll(subject: Record<string, unknown>, wanted: Record<string, unknown> | undefined): boolean {
  return Object.entries(wanted ?? {}).every(([key, value]) => isDeepStrictEqual(subject[key], value));
}

export function latestValues(thread: StoredThread): Values {
  return thread.checkpoints.at(-1)?.values ?? {};
}

// ---- response shapes ----

export function threadView(thread: StoredThread) {
  return {
    thread_id: thread.thread_id,
    created_at: thread.created_at,
    updated_at: thread.updated_at,
    metadata: thread.metadata,
    status: thread.status,
    config: {},
    values: latestValues(thread),
  };
}

function reference(thread: StoredThread, checkpointId: string | null) {
  return { checkpoint_id: checkpointId, thread_id: thread.thread_id, checkpoint_ns: '' };
}

/** The ThreadState at a checkpoint; an empty thread's state has no checkpoint ids (null). */
export function stateView(thread: StoredThread, checkpoint: Checkpoint | undefined) {
  if (!checkpoint) {
    return {
      values: {},
      next: [],
      tasks: [],
      metadata: {},
      created_at: null,
      checkpoint: reference(thread, null),
      parent_checkpoint: null,
      checkpoint_id: null,
      parent_checkpoint_id: null,
      interrupts: [],
    };
  }
  const parentId = checkpoint.parent_checkpoint_id;
  return {
    values: checkpoint.values,
    next: checkpoint.next,
    tasks: checkpoint.next.map((name) => ({
      id: `${checkpoint.checkpoint_id}:${name}`,
      name,
      path: ['__pregel_pull', name],
      error: null,
      interrupts: [],
      checkpoint: null,
      state: null,
      result: null,
    })),
    metadata: {
      thread_id: thread.thread_id,
      checkpoint_id: checkpoint.checkpoint_id,
      graph_id: checkpoint.graph_id,
      run_id: checkpoint.run_id,
      source: checkpoint.source,
      step: checkpoint.step,
      writes: checkpoint.writes,
      parents: {},
    },
    created_at: checkpoint.created_at,
    checkpoint: reference(thread, checkpoint.checkpoint_id),
    parent_checkpoint: parentId === null ? null : reference(thread, parentId),
    checkpoint_id: checkpoint.checkpoint_id,
    parent_checkpoint_id: parentId,
    interrupts: [],
  };
}
