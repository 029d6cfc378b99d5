/** Small HTTP plumbing shared by the control-plane and admin routes. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationFailure } from './validation.ts';

/** An error answered as `{detail}` with its status. */
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, detail: string) {
    super(detail);
    this.status = status;
  }
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RequestContext {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body; undefined when there was none. */
  body: unknown;
  headers: IncomingMessage['headers'];
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

export interface Route {
  method: string;
  template: string;
  handler: Handler;
}

interface CompiledRoute extends Route {
  pattern: RegExp;
  names: string[];
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'wrong-method'; template: string }
  | { kind: 'none' };

export class Router {
  readonly #routes: CompiledRoute[];

  constructor(routes: Route[]) {
    this.#routes = routes.map((route) => {
      const names: string[] = [];
      const source = route.template
        .split('/')
        .map((segment) => {
          const param = /^\{(\w+)\}$/.exec(segment);
          if (!param?.[1]) return segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
          names.push(param[1]);
          return '([^/]+)';
        })
        .join('/');
      return { ...route, pattern: new RegExp(`^${source}/?$`), names };
    });
  }

  match(method: string, path: string): RouteMatch {
    let wrongMethod: string | undefined;
    for (const route of this.#routes) {
      const found = route.pattern.exec(path);
      if (!found) continue;
      if (route.method !== method) {
        wrongMethod ??= route.template;
        continue;
      }
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(found[i + 1] ?? '');
      });
      return { kind: 'found', route, params };
    }
    return wrongMethod ? { kind: 'wrong-method', template: wrongMethod } : { kind: 'none' };
  }
}

const MAX_BODY_BYTES = 5 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'Request body too large');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses a JSON body; invalid JSON is a 422 as FastAPI answers it. */
export function parseJsonBody(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new ValidationFailure([
      { loc: ['body', 0], msg: `JSON decode error: ${(error as Error).message}`, type: 'json_invalid' },
    ]);
  }
}

/** The reply an error thrown by a handler turns into. */
export function errorReply(error: unknown): Reply {
  if (error instanceof ValidationFailure) return { status: 422, body: { detail: error.errors } };
  if (error instanceof HttpError) return { status: error.status, body: { detail: error.message } };
  return { status: 500, body: { detail: 'Internal Server Error' } };
}

export function send(res: ServerResponse, status: number, payload: string | undefined, headers = {}): void {
  if (res.destroyed) return;
  const base: Record<string, string> = payload === undefined ? {} : { 'content-type': 'application/json' };
  res.writeHead(status, { ...base, ...headers });
  res.end(payload);
}
