/**
 * How the simulator serves a request of the control plane's API or of its admin API (`/_simulator/`):
 * the API's requests are recorded, authenticated, and delayed, failed, dropped or spoiled as the
 * injected faults and latency say.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AuthConfig, authenticate } from './auth.ts';
import { type FaultBook, type Latency, pickLatency, spoilBody } from './faults.ts';
import {
  errorReply,
  HttpError,
  parseJsonBody,
  type Reply,
  type RequestContext,
  type RouteMatch,
  type Router,
  send,
} from './http.ts';
import type { RequestRecord } from './index.ts';

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    if (ms <= 0) return resolve();
    setTimeout(resolve, ms).unref();
  });

function queryRecord(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of new Set(query.keys())) out[key] = query.getAll(key).join(',');
  return out;
}

function bodyForRecord(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Serves requests routed by `api` and `admin`; `record` keeps each API request as it is answered. */
export function requestServing(options: {
  api: Router;
  admin: Router;
  auth: AuthConfig;
  faults: FaultBook;
  latency: () => Latency;
  record: (record: RequestRecord) => void;
  log: (line: string) => void;
}): {
  serveApi(req: IncomingMessage, res: ServerResponse, target: URL, raw: string): Promise<void>;
  serveAdmin(req: IncomingMessage, res: ServerResponse, target: URL, raw: string): Promise<void>;
} {
  const { api, admin, auth, faults, log } = options;

  async function run(handler: (ctx: RequestContext) => Reply | Promise<Reply>, ctx: RequestContext) {
    try {
      return await handler(ctx);
    } catch (error) {
      return errorReply(error);
    }
  }

  function contextOf(req: IncomingMessage, url: URL, params: Record<string, string>, body: unknown) {
    return {
      method: req.method ?? 'GET',
      path: url.pathname,
      params,
      query: url.searchParams,
      body,
      headers: req.headers,
    };
  }

  async function serveAdmin(req: IncomingMessage, res: ServerResponse, target: URL, raw: string) {
    const match = admin.match(req.method ?? 'GET', target.pathname);
    let reply: Reply;
    if (match.kind === 'found') {
      reply = await run(
        async (ctx) => {
          const body = parseJsonBody(raw);
          return match.route.handler({ ...ctx, body });
        },
        contextOf(req, target, match.params, undefined),
      );
    } else {
      reply = errorReply(match.kind === 'none' ? notFound() : methodNotAllowed());
    }
    send(res, reply.status, reply.body === undefined ? undefined : JSON.stringify(reply.body), reply.headers);
  }

  async function handle(req: IncomingMessage, target: URL, match: RouteMatch, raw: string): Promise<Reply> {
    if (match.kind !== 'found') return errorReply(match.kind === 'none' ? notFound() : methodNotAllowed());
    return run(
      (ctx) => {
        authenticate(req.headers, auth);
        return match.route.handler({ ...ctx, body: parseJsonBody(raw) });
      },
      contextOf(req, target, match.params, undefined),
    );
  }

  /** Requests whose answer was dropped and whose commit waits for the next one of their method and route. */
  let held: { method: string; route: string; commit: () => Promise<void> }[] = [];
  async function commitHeld(method: string, route: string) {
    const due = held.filter((h) => h.method === method && h.route === route);
    held = held.filter((h) => !due.includes(h));
    for (const h of due) await h.commit();
  }

  async function serveApi(req: IncomingMessage, res: ServerResponse, target: URL, raw: string) {
    const method = req.method ?? 'GET';
    const match = api.match(method, target.pathname);
    const route =
      match.kind === 'found'
        ? match.route.template
        : match.kind === 'wrong-method'
          ? match.template
          : target.pathname;
    const record: RequestRecord = {
      method,
      route,
      path: target.pathname,
      query: queryRecord(target.searchParams),
      status: 0,
      ...(raw === '' ? {} : { body: bodyForRecord(raw) }),
      ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
      at: Date.now(),
    };
    options.record(record);
    const finish = (status: number, payload: string | undefined, headers?: Record<string, string>) => {
      record.status = status;
      log(`${method} ${target.pathname} ${status}`);
      send(res, status, payload, headers);
    };

    await sleep(pickLatency(options.latency()));
    await commitHeld(method, route);
    const fault = faults.take(method, route, target.pathname);
    if (fault?.dropResponse) {
      await sleep(pickLatency(fault.latencyMs));
      const commit = async () => {
        const reply = await handle(req, target, match, raw);
        record.status = reply.status;
        log(`${method} ${target.pathname} ${reply.status} (answer dropped)`);
      };
      if (fault.dropResponse === 'after-commit') await commit();
      else if (fault.dropResponse === 'commit-later')
        setTimeout(() => void commit(), fault.commitAfterMs ?? 1_000).unref();
      else held.push({ method, route, commit });
      req.socket.destroy();
      return;
    }
    if (fault) {
      await sleep(pickLatency(fault.latencyMs));
      if (fault.dropConnection) {
        log(`${method} ${target.pathname} dropped`);
        req.socket.destroy();
        return;
      }
      const onlyDelays = fault.latencyMs !== undefined || fault.malformed !== undefined;
      const status =
        fault.status ?? (onlyDelays ? undefined : fault.retryAfterSeconds !== undefined ? 503 : 500);
      if (status !== undefined) {
        const headers: Record<string, string> =
          fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
        finish(status, JSON.stringify({ detail: `Injected fault: status ${status}` }), headers);
        return;
      }
    }

    const reply = await handle(req, target, match, raw);
    if (fault?.malformed) {
      // A spoiled body needs a status that carries one.
      finish(
        reply.status === 204 ? 200 : reply.status,
        spoilBody(fault.malformed, reply.body),
        reply.headers,
      );
      return;
    }
    finish(reply.status, reply.body === undefined ? undefined : JSON.stringify(reply.body), reply.headers);
  }

  return { serveApi, serveAdmin };
}

function notFound() {
  return new HttpError(404, 'Not Found');
}

function methodNotAllowed() {
  return new HttpError(405, 'Method Not Allowed');
}
