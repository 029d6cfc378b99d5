/**
 * The few agent-server calls a verification makes (seeds/001: /ok, threads, runs, join), over undici
 * with timeouts, every answer checked with zod. Authentication is the credentials in use: X-Api-Key, or
 * Authorization: Bearer with X-Tenant-Id. Error messages never quote a credential, nor an error body:
 * the URL is user-chosen (customUrl), so a body copied into status would let anyone read what an internal
 * service answers. Only the `detail` or `message` string of a JSON error body is quoted, short and
 * printable; of any other body, only its size. With a namespace's own credentials (`quoteAnswers: false`)
 * not even that: an error answer reads as its status code, an unexpected one as the fields that did not
 * match. The URL is taken apart (agent-server-url.ts), never concatenated as text.
 */
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { authHeaders } from '../controlplane/credentials.ts';
import { AbortScope } from '../lib/abort-scope.ts';
import { OutboundError, outboundCall } from '../lib/outbound.ts';
import { cleanPeerText } from '../lib/peer-text.ts';
import { getGlobalDispatcher } from '../lib/undici.ts';
import { parseAgentServerUrl } from './agent-server-url.ts';
import type { AgentServerKey } from './caller.ts';
import { AddressRefusedError } from './guarded-agent.ts';

const TIMEOUT_MS = 10_000;
/** Answers a verification reads are small; a run's output beyond this is not waited for. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** How much of an error body's detail is quoted. */
const MAX_DETAIL = 160;

// Ids are recorded in status (64 characters at most): short and printable, or the answer is unexpected.
const Id = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII');
const Thread = z.looseObject({ thread_id: Id });
const Run = z.looseObject({
  run_id: Id,
  thread_id: Id.optional(),
  status: z.string(),
});
export type Run = z.infer<typeof Run>;
const JoinResult = z.union([
  z.looseObject({
    __error__: z.looseObject({ error: z.string().optional(), message: z.string().optional() }),
  }),
  z.unknown(),
]);
const ErrorBody = z.looseObject({ detail: z.unknown().optional(), message: z.unknown().optional() });

export class AgentServerError extends Error {
  readonly status: number | undefined;
  /** The address rules refused the connection: nothing was sent. */
  readonly refused: boolean;
  constructor(message: string, status?: number, refused = false) {
    super(message);
    this.name = 'AgentServerError';
    this.status = status;
    this.refused = refused;
  }
}

export type JoinOutcome = { done: false } | { done: true; error?: { error?: string; message?: string } };

export interface AgentServerClientOptions {
  /** The deployment's URL; paths are appended to its path (it must pass parseAgentServerUrl). */
  url: string;
  /** The key the calls carry; undefined: none (caller.ts says when). */
  credentials: AgentServerKey | undefined;
  dispatcher?: Dispatcher;
  /** The total deadline of one call (join adds its wait). */
  timeoutMs?: number;
  maxBodyBytes?: number;
  /** Aborts every call (shutdown). */
  signal?: AbortSignal | undefined;
  /** Whether an error answer's detail or size may be quoted (default true; false for a namespace's credentials). */
  quoteAnswers?: boolean;
}

export class AgentServerClient {
  readonly #origin: string;
  readonly #basePath: string;
  readonly #quoteAnswers: boolean;
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];
  readonly #dispatcher: Dispatcher | undefined;
  readonly #timeoutMs: number;
  readonly #maxBodyBytes: number;
  readonly #signal: AbortSignal | undefined;

  constructor(options: AgentServerClientOptions) {
    const url = parseAgentServerUrl(options.url);
    if ('problem' in url) throw new AgentServerError(url.problem);
    this.#origin = url.origin;
    this.#basePath = url.basePath;
    this.#quoteAnswers = options.quoteAnswers ?? true;
    const key = options.credentials;
    this.#headers = { ...(key ? authHeaders(key) : {}), accept: 'application/json' };
    this.#secrets = [key?.apiKey, key?.bearerToken].filter((v): v is string => !!v);
    this.#dispatcher = options.dispatcher;
    this.#timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
    this.#maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
    this.#signal = options.signal;
  }

  async ok(): Promise<void> {
    await this.#call('GET', '/ok', '/ok', undefined, z.unknown());
  }

  async createThread(metadata: Record<string, unknown>): Promise<string> {
    const thread = await this.#call('POST', '/threads', '/threads', { metadata }, Thread);
    return thread.thread_id;
  }

  async createRun(
    threadId: string,
    body: { assistant_id: string; input: unknown; metadata: Record<string, unknown>; webhook?: string },
  ): Promise<Run> {
    return this.#call('POST', '/threads/{thread_id}/runs', `/threads/${enc(threadId)}/runs`, body, Run);
  }

  async getRun(threadId: string, runId: string): Promise<Run> {
    return this.#call(
      'GET',
      '/threads/{thread_id}/runs/{run_id}',
      `/threads/${enc(threadId)}/runs/${enc(runId)}`,
      undefined,
      Run,
    );
  }

  /** Waits up to `waitMs` for the run to complete; `done: false` when it is still going. */
  async join(threadId: string, runId: string, waitMs: number): Promise<JoinOutcome> {
    const wait = new AbortScope([], Math.max(1, waitMs));
    try {
      const result = await this.#call(
        'GET',
        '/threads/{thread_id}/runs/{run_id}/join',
        `/threads/${enc(threadId)}/runs/${enc(runId)}/join`,
        undefined,
        JoinResult,
        { signal: wait.signal, timeoutMs: waitMs + this.#timeoutMs },
      );
      const error = (result as { __error__?: { error?: string; message?: string } } | null)?.__error__;
      return error ? { done: true, error } : { done: true };
    } catch (err) {
      if (wait.timedOut) return { done: false };
      throw err;
    } finally {
      wait.end();
    }
  }

  async #call<T>(
    method: 'GET' | 'POST',
    route: string,
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    opts: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<T> {
    const what = `${method} ${route}`;
    const timeoutMs = opts.timeoutMs ?? this.#timeoutMs;
    let status: number;
    let text: string;
    // The join's own wait ends it with done: false; the client's signal (shutdown) cancels it.
    const cancel = new AbortScope([opts.signal, this.#signal]);
    try {
      const response = await outboundCall(
        { deadlineMs: timeoutMs, maxBodyBytes: this.#maxBodyBytes, signal: cancel.signal },
        async (signal) => {
          const sent = await (this.#dispatcher ?? getGlobalDispatcher()).request({
            origin: this.#origin,
            path: `${this.#basePath}${path}`,
            method,
            headers:
              body === undefined ? this.#headers : { ...this.#headers, 'content-type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
            signal,
          });
          return { status: sent.statusCode, headers: sent.headers, body: sent.body };
        },
      );
      status = response.status;
      text = response.text;
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const refused = refusalIn(err);
      if (refused) throw new AgentServerError(`${what} not sent: ${refused.message}`, undefined, true);
      const reason =
        err instanceof OutboundError && err.kind === 'transport'
          ? (err.code ?? err.message)
          : err instanceof Error
            ? err.message
            : String(err);
      throw new AgentServerError(`${what} failed: ${this.#redact(reason)}`);
    } finally {
      cancel.end();
    }
    if (status < 200 || status >= 300) {
      throw new AgentServerError(`${what} answered ${status}${this.#detail(text)}`, status);
    }
    let json: unknown;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      throw new AgentServerError(`${what} answered ${status} with a body that is not JSON`, status);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) =>
        this.#quoteAnswers ? `${i.path.join('.') || 'body'}: ${i.message}` : i.path.join('.') || 'body',
      );
      throw new AgentServerError(
        `${what} answered an unexpected body: ${issues.slice(0, 3).join('; ')}`,
        status,
      );
    }
    return parsed.data;
  }

  /** What an error answer says, reduced: the JSON detail or message string, else only the body's size. */
  #detail(text: string): string {
    if (text.trim() === '' || !this.#quoteAnswers) return '';
    let detail: unknown;
    try {
      const body = ErrorBody.safeParse(JSON.parse(text));
      if (body.success) detail = body.data.detail ?? body.data.message;
    } catch {
      // not JSON: not quoted
    }
    if (typeof detail !== 'string') return ` (a ${Buffer.byteLength(text)}-byte body, not quoted)`;
    const summary = cleanPeerText(this.#redact(detail), MAX_DETAIL);
    return summary === '' ? '' : `: ${summary}`;
  }

  #redact(text: string): string {
    return this.#secrets.reduce((t, s) => t.split(s).join('[redacted]'), text);
  }
}

const enc = encodeURIComponent;

/** The address rules' refusal, however deep the transport wrapped it. */
function refusalIn(err: unknown): AddressRefusedError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof AddressRefusedError) return e;
  }
  return undefined;
}
