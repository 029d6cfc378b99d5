/**
 * The HTTP machinery under the control-plane client: one call goes through the circuit breaker and the
 * limiter, is sent with its deadline and body bound, has its answer read and checked with its zod schema
 * and against what was asked, and every failure becomes a typed error (errors.ts). Only GETs are retried.
 * Listings are walked page by page within a page and byte budget. The endpoints are client.ts's.
 */

import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { AbortScope } from '../lib/abort-scope.ts';
import { OutboundError, outboundCall } from '../lib/outbound.ts';
import { Pool } from '../lib/undici.ts';
import { sleep } from '../runtime/clock.ts';
import { userAgent } from '../version.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import { authHeaders, type Credentials, parseCredentials } from './credentials.ts';
import {
  BudgetExceededError,
  CircuitOpenError,
  ControlPlaneError,
  CredentialBusyError,
  errorFromResponse,
  MalformedResponseError,
  RateLimitedError,
  ResponseTooLargeError,
  UnavailableError,
} from './errors.ts';
import type { RequestLimiter } from './limiter.ts';
import { DEFAULT_TIMEOUTS, type Timeouts } from './timeouts.ts';
import { transportError } from './transport-error.ts';

export { DEFAULT_TIMEOUTS, type Timeouts };

/**
 * connectMs, headersMs and bodyMs are idle timers; totalMs is the deadline of the whole attempt, body
 * included, so a server that trickles bytes cannot hold a call.
 */

/** One HTTP attempt, for metrics. `route` is the path template, never the filled-in path. */
export type RequestEvent = {
  operation: string;
  method: string;
  route: string;
  status: number | 'error';
  durationMs: number;
};

/** How calls reach the control plane: the client's options (ControlPlaneClientOptions). */
export type TransportOptions = {
  credentials: Credentials;
  /** Shared connection pool; without one the client makes its own (closed by close()). */
  dispatcher?: Dispatcher;
  /** connectMs applies only to the pool the client makes itself; a given dispatcher has its own. */
  timeouts?: Partial<Timeouts>;
  /** Extra attempts for a GET that failed with a retryable error. Default 2. */
  getRetries?: number;
  /** Exponential backoff with jitter between GET attempts. Defaults 200 ms, capped at 5 s. */
  retryDelay?: { baseMs?: number; maxMs?: number };
  onRequest?: (event: RequestEvent) => void;
  /** Shared by every client of one credential: pace, concurrency, and pauses asked by 429/503. */
  limiter?: RequestLimiter;
  /** Shared by every client of one credential: parks it after repeated failures (circuit-breaker.ts). */
  breaker?: CircuitBreaker;
  /**
   * The credentials are one namespace's own (its credentials Secret), not the controller's that every
   * namespace may use: what that namespace sends then counts toward their breaker, which only it (and
   * any namespace holding the same key) shares. Default false.
   */
  namespaceOwned?: boolean;
  /** Bytes of response body read before the call is abandoned. Default 2 MiB. */
  maxBodyBytes?: number;
  /** Bounds of one walk over a listing's pages. Defaults WALK_MAX_PAGES and WALK_MAX_BYTES. */
  walkMaxPages?: number;
  walkMaxBytes?: number;
  /** Aborts every call of this client, waits included (shutdown, the end of a pass). */
  signal?: AbortSignal | undefined;
  /** Aborts them as well: the pools' own (they close), beside a pass's `signal`. */
  closing?: AbortSignal | undefined;
  /** The User-Agent header; default `agent-deployment-operator/<version>` (version.ts: userAgent). */
  userAgent?: string;
};

/**
 * One response's body: a page of 100 deployments is tens of KiB. The bound is what a hostile server can
 * make one call cost: the text, its parse and its schema check together are a few times this.
 */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;
/** Every page of one walk together (a name lookup, the template listing). */
export const WALK_MAX_BYTES = 16 * 1024 * 1024;
/**
 * A listing longer than this many pages is taken as a server that never ends it: 20,000 deployments whose
 * names contain the one looked up, or 100,000 templates.
 */
export const WALK_MAX_PAGES = 200;
const DEFAULT_GET_RETRIES = 2;
const MAX_LISTED_ISSUES = 10;

/** One request: what to send, how to read the answer, and what the answer must match. */
export type Call<T> = {
  operation: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  route: string;
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  /** Checks the 2xx body; without one the body is read and dropped. */
  schema?: z.ZodType<T>;
  /** Values of the request to strip from anything the server says back. */
  secrets?: readonly string[];
  /** The byte budget of the walk this call is a page of: the body may use what is left of it. */
  walk?: WalkBudget;
  /** Checks the parsed answer belongs to the request (the id asked for); a message when it does not. */
  mismatch?: (answer: T) => string | undefined;
  /**
   * The request carries what one namespace chose: a body from its spec, its deployment name or adopt
   * annotation, or a write to its deployment. A failure once it was sent may be the server's answer to
   * that, so on credentials namespaces share it does not count toward the circuit breaker
   * (circuit-breaker.ts: breaksCircuit).
   */
  namespaceChosen?: boolean;
  /**
   * Whether the caller already applied an answer of exactly this text (a steady poll's page): the call
   * then resolves to KNOWN_ANSWER, the text neither parsed nor checked again (it was, when first seen).
   */
  known?: (text: string) => boolean;
};

/** What a call resolves to when its `known` recognised the answer's text. */
export const KNOWN_ANSWER: unique symbol = Symbol('an answer already applied');
export type KnownAnswer = typeof KNOWN_ANSWER;

/** One page of a listing: its items and the offset the server says comes next. */
export type Page<T> = { items: T[]; offset: number };
/** What is left of a walk's byte budget, shared by its pages. */
export type WalkBudget = { bytesLeft: number };

/** Sends the calls of one client (one credential): the endpoints build them, this sends and reads them. */
export class ControlPlaneTransport {
  readonly #origin: string;
  readonly #basePath: string;
  readonly #headers: Record<string, string>;
  readonly #credentialValues: string[];
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #timeouts: Timeouts;
  readonly #getRetries: number;
  readonly #retryBaseMs: number;
  readonly #retryMaxMs: number;
  readonly #onRequest: ((event: RequestEvent) => void) | undefined;
  readonly #limiter: RequestLimiter | undefined;
  readonly #breaker: CircuitBreaker | undefined;
  readonly #namespaceOwned: boolean;
  readonly #maxBodyBytes: number;
  readonly #walkMaxPages: number;
  readonly #walkMaxBytes: number;
  readonly #signal: AbortSignal | undefined;
  readonly #closing: AbortSignal | undefined;

  /** Throws CredentialsConfigError when the credentials cannot be used. */
  constructor(options: TransportOptions) {
    const credentials = parseCredentials(options.credentials);
    const url = new URL(credentials.baseUrl);
    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#headers = {
      ...authHeaders(credentials),
      accept: 'application/json',
      'user-agent': options.userAgent ?? userAgent(),
    };
    this.#credentialValues = [credentials.apiKey, credentials.bearerToken].filter(
      (v): v is string => v !== undefined,
    );
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.#getRetries = Math.max(0, options.getRetries ?? DEFAULT_GET_RETRIES);
    this.#retryBaseMs = options.retryDelay?.baseMs ?? 200;
    this.#retryMaxMs = options.retryDelay?.maxMs ?? 5_000;
    this.#onRequest = options.onRequest;
    this.#limiter = options.limiter;
    this.#breaker = options.breaker;
    this.#namespaceOwned = options.namespaceOwned ?? false;
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#walkMaxPages = options.walkMaxPages ?? WALK_MAX_PAGES;
    this.#walkMaxBytes = options.walkMaxBytes ?? WALK_MAX_BYTES;
    this.#signal = options.signal;
    this.#closing = options.closing;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ?? new Pool(this.#origin, { connect: { timeout: this.#timeouts.connectMs } });
  }

  /** Closes the client's own pool; a shared dispatcher is left to its owner. */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /**
   * Follows the response's `offset` until a page is short or empty, or the offset stops advancing
   * (a server that repeats a page must not loop us). Items seen twice (the list shifted) count once;
   * only those `keep` accepts are held. Past WALK_MAX_PAGES pages or WALK_MAX_BYTES of bodies the walk
   * ends with BudgetExceededError: memory and time stay bounded whatever the server sends.
   *
   * A page whose answer is over the size bound is asked again at half the page size, down to one item
   * (and back up after); one item over the bound ends the walk (ResponseTooLargeError), or with
   * `skipOverSize` (a lookup that keeps only exact matches) is stepped over: big items of others that
   * match the filter must not stop a lookup for good.
   */
  async allPages<T extends { id: string }>(
    operation: string,
    pageSize: number,
    fetchPage: (offset: number, walk: WalkBudget, limit: number) => Promise<Page<T>>,
    keep: (item: T) => boolean = () => true,
    opts: { skipOverSize?: boolean } = {},
  ): Promise<T[]> {
    const byId = new Map<string, T>();
    const walk: WalkBudget = { bytesLeft: this.#walkMaxBytes };
    let offset = 0;
    let limit = pageSize;
    for (let pages = 0; pages < this.#walkMaxPages; pages++) {
      let page: Page<T>;
      try {
        page = await fetchPage(offset, walk, limit);
      } catch (err) {
        if (!(err instanceof ResponseTooLargeError)) throw err;
        if (limit > 1) limit = Math.ceil(limit / 2);
        else if (opts.skipOverSize) offset += 1;
        else throw err;
        continue;
      }
      for (const item of page.items) if (!byId.has(item.id) && keep(item)) byId.set(item.id, item);
      if (page.items.length < limit || page.offset <= offset) return [...byId.values()];
      offset = page.offset;
      limit = Math.min(pageSize, limit * 2);
    }
    throw new BudgetExceededError(operation, `the listing did not end within ${this.#walkMaxPages} pages`);
  }

  async call<T>(call: Call<T>): Promise<T> {
    // The client's signal and the pools' closing, joined for this call only (abort-scope.ts).
    const scope = new AbortScope([this.#signal, this.#closing]);
    const { signal } = scope;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.#attempt(call, signal);
        } catch (err) {
          const delayMs = this.#retryDelay(call, err, attempt);
          if (delayMs === undefined || signal.aborted) throw err;
          await sleep(delayMs, signal);
        }
      }
    } finally {
      scope.end();
    }
  }

  /** How long to wait before trying again, or undefined to give up. */
  #retryDelay(call: Pick<Call<unknown>, 'method'>, err: unknown, attempt: number): number | undefined {
    if (call.method !== 'GET' || attempt >= this.#getRetries) return undefined;
    if (!(err instanceof ControlPlaneError) || !err.retryable) return undefined;
    // Nothing was sent: the credential is parked or busy for longer than a call may wait. The object
    // comes back at retryAfterMs through the queue; a worker never sleeps on it inside the call.
    if (err instanceof CircuitOpenError || err instanceof CredentialBusyError) return undefined;
    const ceiling = Math.min(this.#retryMaxMs, this.#retryBaseMs * 2 ** attempt);
    const backoff = ceiling / 2 + Math.random() * (ceiling / 2);
    const asked = 'retryAfterMs' in err && typeof err.retryAfterMs === 'number' ? err.retryAfterMs : 0;
    // A server asking for a long pause gets it from the caller's requeue, not from a blocked call.
    if (asked > this.#retryMaxMs) return undefined;
    return Math.max(backoff, asked);
  }

  async #attempt<T>(call: Call<T>, signal: AbortSignal): Promise<T> {
    const breaker = this.#breaker;
    if (!breaker) return this.#limited(call, signal);
    breaker.admit(call.operation);
    try {
      const answer = await this.#limited(call, signal);
      breaker.record(undefined);
      return answer;
    } catch (err) {
      breaker.record(err, call.namespaceChosen === true && !this.#namespaceOwned);
      throw err;
    }
  }

  async #limited<T>(call: Call<T>, signal: AbortSignal): Promise<T> {
    if (!this.#limiter) return this.#send(call, signal);
    const limiter = this.#limiter;
    try {
      return await limiter.run(() => this.#send(call, signal), {
        operation: call.operation,
        signal,
      });
    } catch (err) {
      if (err instanceof RateLimitedError || err instanceof UnavailableError) {
        if (err.retryAfterMs !== undefined) limiter.pause(err.retryAfterMs);
      }
      throw err;
    }
  }

  async #send<T>(call: Call<T>, callSignal: AbortSignal): Promise<T> {
    const query = call.query?.toString();
    const path = `${this.#basePath}${call.path}${query ? `?${query}` : ''}`;
    const headers =
      call.body === undefined ? this.#headers : { ...this.#headers, 'content-type': 'application/json' };
    const started = performance.now();
    const report = (status: number | 'error') => {
      const event = { operation: call.operation, method: call.method, route: call.route, status };
      try {
        this.#onRequest?.({ ...event, durationMs: performance.now() - started });
      } catch {
        // A metrics hook must never fail a request.
      }
    };

    let statusCode: number;
    let responseHeaders: Dispatcher.ResponseData['headers'];
    let text: string;
    const walk = call.walk;
    const maxBodyBytes = walk ? Math.min(this.#maxBodyBytes, walk.bytesLeft) : this.#maxBodyBytes;
    try {
      // The body is always read, errors included, so the connection goes back to the pool.
      const res = await outboundCall(
        { deadlineMs: this.#timeouts.totalMs, maxBodyBytes, signal: callSignal },
        async (signal) => {
          const sent = await this.#dispatcher.request({
            origin: this.#origin,
            path,
            method: call.method,
            headers,
            body: call.body === undefined ? null : JSON.stringify(call.body),
            headersTimeout: this.#timeouts.headersMs,
            bodyTimeout: this.#timeouts.bodyMs,
            signal,
          });
          return { status: sent.statusCode, headers: sent.headers, body: sent.body };
        },
      );
      statusCode = res.status;
      responseHeaders = res.headers;
      text = res.text;
    } catch (err) {
      report('error');
      if (walk && maxBodyBytes < this.#maxBodyBytes && isTooLarge(err)) {
        throw new BudgetExceededError(
          call.operation,
          `the listing's pages passed ${this.#walkMaxBytes} bytes`,
        );
      }
      // The call's budget, not the server's health: never a failure toward the circuit breaker. What was
      // read counts toward the walk's bytes: a walk that steps over big answers still ends.
      if (isTooLarge(err)) {
        if (walk) walk.bytesLeft -= maxBodyBytes;
        throw new ResponseTooLargeError(call.operation, maxBodyBytes);
      }
      throw transportError(call.operation, err);
    }
    report(statusCode);
    if (walk) walk.bytesLeft -= Buffer.byteLength(text);

    if (statusCode < 200 || statusCode >= 300) {
      throw errorFromResponse({
        operation: call.operation,
        status: statusCode,
        headers: responseHeaders,
        bodyText: text,
        secrets: [...this.#credentialValues, ...(call.secrets ?? [])],
      });
    }
    if (call.schema === undefined) return undefined as T;
    if (call.known?.(text)) return KNOWN_ANSWER as T;
    const answer = parseBody(call.operation, statusCode, text, call.schema);
    // An answer about something else is never stored: a server must not plant another's deployment.
    const mismatch = call.mismatch?.(answer);
    if (mismatch) throw new MalformedResponseError(call.operation, statusCode, mismatch);
    return answer;
  }
}

const isTooLarge = (err: unknown) => err instanceof OutboundError && err.kind === 'body-too-large';

function parseBody<T>(operation: string, status: number, text: string, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new MalformedResponseError(operation, status, 'the body is not JSON');
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  // Paths and codes only: zod's messages could quote the values, which may be secrets.
  const issues = parsed.error.issues.slice(0, MAX_LISTED_ISSUES).map((i) => ({
    path: i.path.map(String).join('.') || '(root)',
    code: i.code,
  }));
  throw new MalformedResponseError(operation, status, 'the body does not have the expected fields', issues);
}
