/**
 * Server-sent events for streamed runs. First `metadata` ({run_id, attempt}), then per checkpoint one
 * event per requested stream mode, named after the mode (`values`, `updates`, `messages`, `events`),
 * then `error` when the run failed. The stream closes when the run ends.
 */
import type { ServerResponse } from 'node:http';
import type { Message } from './messages.ts';
import type { RunEvent } from './runs.ts';

export const STREAM_MODES = [
  'values',
  'updates',
  'messages',
  'messages-tuple',
  'events',
  'debug',
  'custom',
  'tasks',
  'checkpoints',
] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

type SseEvent = [name: string, data: unknown];

/** The SSE events one run event becomes under the requested modes. */
export function sseEventsOf(event: RunEvent, modes: readonly StreamMode[], graphId: string): SseEvent[] {
  const out: SseEvent[] = [];
  if (event.kind === 'start') {
    if (modes.includes('events')) {
      out.push(['events', { event: 'on_chain_start', name: graphId, run_id: event.run.run_id, data: {} }]);
    }
    return out;
  }
  if (event.kind === 'end') {
    if (modes.includes('events') && !event.error) {
      out.push([
        'events',
        { event: 'on_chain_end', name: graphId, run_id: event.run.run_id, data: { output: event.values } },
      ]);
    }
    if (event.error) out.push(['error', event.error]);
    return out;
  }
  const { node, update, checkpoint } = event;
  const meta = { langgraph_node: node, langgraph_step: checkpoint.step, run_id: checkpoint.run_id };
  for (const mode of modes) {
    if (mode === 'values') out.push(['values', checkpoint.values]);
    if (mode === 'updates' && checkpoint.source === 'loop') out.push(['updates', { [node]: update }]);
    if ((mode === 'messages-tuple' || mode === 'messages') && checkpoint.source === 'loop') {
      for (const message of (update.messages as Message[] | undefined) ?? []) {
        out.push(['messages', [message, meta]]);
      }
    }
    if (mode === 'events' && checkpoint.source === 'loop') {
      out.push([
        'events',
        {
          event: 'on_chain_end',
          name: node,
          run_id: checkpoint.run_id,
          data: { output: update },
          metadata: meta,
        },
      ]);
    }
  }
  return out;
}

/** Buffers a run's events from its creation until a response is attached, then writes them as SSE. */
export class EventStream {
  readonly headers: Record<string, string>;
  readonly #modes: readonly StreamMode[];
  readonly #graphId: string;
  readonly #buffer: SseEvent[] = [];
  #res: ServerResponse | undefined;
  #ended = false;
  #finished: () => void = () => {};

  constructor(modes: readonly StreamMode[], graphId: string, headers: Record<string, string> = {}) {
    this.#modes = modes;
    this.#graphId = graphId;
    this.headers = headers;
  }

  /** The run listener to pass when creating the run. */
  readonly listener = (event: RunEvent): void => {
    for (const sse of sseEventsOf(event, this.#modes, this.#graphId)) this.#write(sse);
    if (event.kind === 'end') {
      this.#ended = true;
      this.#res?.end();
      this.#finished();
    }
  };

  /** Opens the stream on the response; resolves when the run has ended or the client went away. */
  pipe(res: ServerResponse, first: SseEvent): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      ...this.headers,
    });
    this.#res = res;
    res.write(format(first));
    for (const sse of this.#buffer.splice(0)) res.write(format(sse));
    if (this.#ended) {
      res.end();
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#finished = resolve;
      res.once('close', () => resolve());
    });
  }

  #write(sse: SseEvent): void {
    if (this.#res && !this.#res.destroyed) this.#res.write(format(sse));
    else if (!this.#res) this.#buffer.push(sse);
  }
}

function format([name, data]: SseEvent): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
