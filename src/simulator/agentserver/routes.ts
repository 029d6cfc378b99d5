/** The agent server's endpoints, relative to the deployment's URL. */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { HttpError, type Reply, type RequestContext, type Route } from '../http.ts';
import { parseOrFail } from '../validation.ts';
import { type Assistant, AssistantSearchSchema, findAssistant, searchAssistants } from './assistants.ts';
import type { AgentServerConfig } from './config.ts';
import { MULTITASK_STRATEGIES, type Run, type RunEngine, type RunOutcome } from './runs.ts';
import { EventStream, STREAM_MODES, type StreamMode } from './sse.ts';
import {
  applyUpdate,
  type StoredThread,
  SuperstepSchema,
  stateView,
  ThreadSearchSchema,
  type ThreadStore,
  threadView,
} from './threads.ts';
import { refuseWebhookUrl } from './webhook-url.ts';

export const SERVER_VERSION = '0.5.36';

export interface AgentServerState {
  deploymentId: string;
  threads: ThreadStore;
  runs: RunEngine;
  assistants(): Assistant[];
  crons: Map<string, Record<string, unknown>>;
  config(): AgentServerConfig;
}

const Obj = z.record(z.string(), z.unknown());
const StreamModeSchema = z.union([z.enum(STREAM_MODES), z.array(z.enum(STREAM_MODES))]);

const ThreadCreateSchema = z
  .object({
    thread_id: z.uuid().optional(),
    metadata: Obj.optional(),
    supersteps: z.array(SuperstepSchema).optional(),
    if_exists: z.enum(['raise', 'do_nothing']).optional(),
  })
  .loose();

const HistorySchema = z
  .object({
    limit: z.number().int().min(1).default(10),
    before: z.union([z.string(), z.object({ checkpoint_id: z.string() }).loose()]).optional(),
  })
  .loose();

const RunCreateSchema = z
  .object({
    assistant_id: z.string().min(1),
    input: Obj.nullable().optional(),
    config: z.object({ configurable: Obj.optional() }).loose().optional(),
    metadata: Obj.optional(),
    multitask_strategy: z.enum(MULTITASK_STRATEGIES).default('enqueue'),
    webhook: z.string().min(1).nullable().optional(),
    stream_mode: StreamModeSchema.optional(),
    if_not_exists: z.enum(['create', 'reject']).optional(),
  })
  .loose();
type RunCreate = z.infer<typeof RunCreateSchema>;

const CronCreateSchema = RunCreateSchema.extend({
  schedule: z.string().regex(/^\S+(\s+\S+){4,5}$/, 'A cron schedule has five (or six) fields'),
});

const body = (ctx: RequestContext) => ctx.body ?? {};
const ok = (value: unknown, headers?: Record<string, string>): Reply => ({
  status: 200,
  body: value,
  ...(headers ? { headers } : {}),
});

export function agentServerRoutes(state: AgentServerState): Route[] {
  const thread = (ctx: RequestContext): StoredThread => {
    const id = ctx.params.thread_id ?? '';
    const found = state.threads.get(id);
    if (!found) throw new HttpError(404, `Thread ${id} not found`);
    return found;
  };
  const assistant = (id: string): Assistant => {
    const found = findAssistant(state.assistants(), id);
    if (!found) throw new HttpError(404, `Assistant ${id} not found`);
    return found;
  };
  const check = <T extends RunCreate>(request: T): T => {
    // Input messages are checked now, so a bad one is a 422 rather than a failed run.
    applyUpdate({}, request.input ?? null, ['body', 'input']);
    if (request.webhook) {
      const refusal = refuseWebhookUrl(request.webhook, state.config().webhooks);
      if (refusal) throw new HttpError(422, refusal);
    }
    return request;
  };
  const parseRun = (ctx: RequestContext) => check(parseOrFail(RunCreateSchema, ctx.body, ['body']));
  const parseCron = (ctx: RequestContext) => check(parseOrFail(CronCreateSchema, ctx.body, ['body']));
  const startRun = (
    target: StoredThread,
    request: RunCreate,
    options: { stateless: boolean; stream?: EventStream },
  ): Run => {
    const chosen = assistant(request.assistant_id);
    const modes = request.stream_mode ?? 'values';
    return state.runs.create(
      target,
      {
        assistantId: chosen.assistant_id,
        graphId: chosen.graph_id,
        input: request.input ?? null,
        config: request.config ?? {},
        metadata: request.metadata ?? {},
        multitaskStrategy: request.multitask_strategy,
        webhook: request.webhook ?? null,
        streamMode: Array.isArray(modes) ? modes : [modes],
        stateless: options.stateless,
      },
      options.stream?.listener,
    );
  };
  const threadForRun = (ctx: RequestContext, request: RunCreate): StoredThread => {
    const id = ctx.params.thread_id ?? '';
    const found = state.threads.get(id);
    if (found) return found;
    if (request.if_not_exists === 'create') return state.threads.create({ threadId: id });
    throw new HttpError(404, `Thread ${id} not found`);
  };
  const statelessThread = (request: RunCreate): StoredThread =>
    state.threads.create({ metadata: { graph_id: assistant(request.assistant_id).graph_id }, hidden: true });
  const location = (run: Run) => ({ 'content-location': `/threads/${run.thread_id}/runs/${run.run_id}` });

  const waitFor = async (run: Run, headers?: Record<string, string>): Promise<Reply> => {
    const outcome = await state.runs.join(run.thread_id, run.run_id);
    return ok(resultOf(outcome), headers);
  };
  const stream = (target: StoredThread, request: RunCreate, stateless: boolean): Reply => {
    const graphId = assistant(request.assistant_id).graph_id;
    const modes = request.stream_mode ?? 'values';
    const events = new EventStream(Array.isArray(modes) ? modes : [modes as StreamMode], graphId);
    const run = startRun(target, request, { stateless, stream: events });
    if (!stateless) Object.assign(events.headers, location(run));
    return { status: 200, body: { stream: events, run } satisfies StreamBody };
  };
  const cron = (threadId: string | null, request: z.infer<typeof CronCreateSchema>) => {
    const at = new Date().toISOString();
    const { schedule, ...payload } = request;
    const record = {
      cron_id: randomUUID(),
      assistant_id: assistant(request.assistant_id).assistant_id,
      thread_id: threadId,
      schedule,
      payload,
      metadata: request.metadata ?? {},
      created_at: at,
      updated_at: at,
      end_time: null,
      user_id: null,
      next_run_date: null,
    };
    state.crons.set(record.cron_id, record);
    return ok(record);
  };

  return [
    { method: 'GET', template: '/ok', handler: () => ok({ ok: true }) },
    {
      method: 'GET',
      template: '/info',
      handler: () =>
        ok({
          version: SERVER_VERSION,
          flags: { assistants: true, crons: true, langsmith: false },
          metadata: { deployment_id: state.deploymentId, graphs: state.assistants().map((a) => a.graph_id) },
        }),
    },
    {
      method: 'POST',
      template: '/assistants/search',
      handler: (ctx) =>
        ok(searchAssistants(state.assistants(), parseOrFail(AssistantSearchSchema, body(ctx), ['body']))),
    },
    {
      method: 'GET',
      template: '/assistants/{assistant_id}',
      handler: (ctx) => ok(assistant(ctx.params.assistant_id ?? '')),
    },
    {
      method: 'POST',
      template: '/threads',
      handler: (ctx) => {
        const request = parseOrFail(ThreadCreateSchema, body(ctx), ['body']);
        const existing = request.thread_id ? state.threads.get(request.thread_id) : undefined;
        if (existing) {
          if (request.if_exists === 'do_nothing') return ok(threadView(existing));
          throw new HttpError(409, `Thread ${request.thread_id} already exists`);
        }
        const created = state.threads.create({
          ...(request.thread_id ? { threadId: request.thread_id } : {}),
          ...(request.metadata ? { metadata: request.metadata } : {}),
          ...(request.supersteps ? { supersteps: request.supersteps } : {}),
        });
        return ok(threadView(created));
      },
    },
    {
      method: 'POST',
      template: '/threads/search',
      handler: (ctx) =>
        ok(state.threads.search(parseOrFail(ThreadSearchSchema, body(ctx), ['body'])).map(threadView)),
    },
    { method: 'GET', template: '/threads/{thread_id}', handler: (ctx) => ok(threadView(thread(ctx))) },
    {
      method: 'POST',
      template: '/threads/{thread_id}/copy',
      handler: (ctx) => ok(threadView(state.threads.copy(thread(ctx)))),
    },
    {
      method: 'GET',
      template: '/threads/{thread_id}/state',
      handler: (ctx) => {
        const found = thread(ctx);
        return ok(stateView(found, found.checkpoints.at(-1)));
      },
    },
    {
      method: 'GET',
      template: '/threads/{thread_id}/state/{checkpoint_id}',
      handler: (ctx) => {
        const found = thread(ctx);
        const checkpoint = found.checkpoints.find((c) => c.checkpoint_id === ctx.params.checkpoint_id);
        if (!checkpoint) throw new HttpError(404, `Checkpoint ${ctx.params.checkpoint_id} not found`);
        return ok(stateView(found, checkpoint));
      },
    },
    {
      method: 'POST',
      template: '/threads/{thread_id}/history',
      handler: (ctx) => {
        const found = thread(ctx);
        const request = parseOrFail(HistorySchema, body(ctx), ['body']);
        let newestFirst = [...found.checkpoints].reverse();
        if (request.before !== undefined) {
          const before = typeof request.before === 'string' ? request.before : request.before.checkpoint_id;
          const at = newestFirst.findIndex((c) => c.checkpoint_id === before);
          newestFirst = at < 0 ? [] : newestFirst.slice(at + 1);
        }
        return ok(newestFirst.slice(0, request.limit).map((c) => stateView(found, c)));
      },
    },
    {
      method: 'POST',
      template: '/threads/{thread_id}/runs',
      handler: (ctx) => {
        const request = parseRun(ctx);
        const run = startRun(threadForRun(ctx, request), request, { stateless: false });
        return ok(run, location(run));
      },
    },
    {
      method: 'GET',
      template: '/threads/{thread_id}/runs',
      handler: (ctx) => ok(state.runs.list(thread(ctx).thread_id)),
    },
    {
      method: 'POST',
      template: '/threads/{thread_id}/runs/wait',
      handler: (ctx) => {
        const request = parseRun(ctx);
        const run = startRun(threadForRun(ctx, request), request, { stateless: false });
        return waitFor(run, location(run));
      },
    },
    {
      method: 'POST',
      template: '/threads/{thread_id}/runs/stream',
      handler: (ctx) => {
        const request = parseRun(ctx);
        return stream(threadForRun(ctx, request), request, false);
      },
    },
    {
      method: 'POST',
      template: '/threads/{thread_id}/runs/crons',
      handler: (ctx) => cron(thread(ctx).thread_id, parseCron(ctx)),
    },
    {
      method: 'GET',
      template: '/threads/{thread_id}/runs/{run_id}',
      handler: (ctx) => {
        const run = state.runs.get(thread(ctx).thread_id, ctx.params.run_id ?? '');
        if (!run) throw new HttpError(404, `Run ${ctx.params.run_id} not found`);
        return ok(run);
      },
    },
    {
      method: 'POST',
      template: '/threads/{thread_id}/runs/{run_id}/cancel',
      handler: (ctx) => {
        const action = ctx.query.get('action') ?? 'interrupt';
        if (action !== 'interrupt' && action !== 'rollback') {
          throw new HttpError(422, "action must be 'interrupt' or 'rollback'");
        }
        if (!state.runs.cancel(thread(ctx), ctx.params.run_id ?? '', action)) {
          throw new HttpError(404, `Run ${ctx.params.run_id} not found`);
        }
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      template: '/threads/{thread_id}/runs/{run_id}/join',
      handler: async (ctx) => {
        const outcome = await state.runs.join(thread(ctx).thread_id, ctx.params.run_id ?? '');
        if (!outcome) throw new HttpError(404, `Run ${ctx.params.run_id} not found`);
        return ok(resultOf(outcome));
      },
    },
    {
      method: 'POST',
      template: '/runs/wait',
      handler: (ctx) => {
        const request = parseRun(ctx);
        return waitFor(startRun(statelessThread(request), request, { stateless: true }));
      },
    },
    {
      method: 'POST',
      template: '/runs/stream',
      handler: (ctx) => {
        const request = parseRun(ctx);
        return stream(statelessThread(request), request, true);
      },
    },
    {
      method: 'POST',
      template: '/runs/crons',
      handler: (ctx) => cron(null, parseCron(ctx)),
    },
  ];
}

/** What join and wait answer: the thread's final values, or `__error__` for a failed run. */
function resultOf(outcome: RunOutcome | undefined): unknown {
  if (!outcome) return {};
  return outcome.error ? { __error__: outcome.error } : outcome.values;
}

/** A stream reply's body: the transport writes it as server-sent events. */
export interface StreamBody {
  stream: EventStream;
  run: Run;
}

export function isStreamBody(value: unknown): value is StreamBody {
  return typeof value === 'object' && value !== null && (value as StreamBody).stream instanceof EventStream;
}
