import { HttpMethod, type KubeConfig, RequestContext } from '@kubernetes/client-node';
import { type Dispatcher, fetch } from 'undici';
import { z } from 'zod';
import { OutboundError, outboundCall } from '../lib/outbound.ts';
import { ConflictError, KubeApiError, NotFoundError } from './errors.ts';

export type KubeMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface KubeRequest {
  method: KubeMethod;
  /** Absolute API path, e.g. /api/v1/namespaces/default/configmaps/x */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
  /** Aborts the request (a stopping controller). */
  signal?: AbortSignal | undefined;
  /** The whole call, body included. Default 30 s; lists of a large namespace may need more. */
  deadlineMs?: number;
  /** Default 64 MiB. */
  maxBodyBytes?: number;
  /**
   * A connection of its own instead of the shared pool: for the few calls that must not wait behind a
   * pooled connection an API server restart left half-open (Lease renewals, against the renew deadline).
   */
  ownConnection?: boolean;
}

export const KUBE_DEFAULT_DEADLINE_MS = 30_000;
export const KUBE_DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

const Status = z.looseObject({ message: z.string().optional(), reason: z.string().optional() });

/**
 * One connection pool per KubeConfig. client-node builds a new undici Agent for every request, so each
 * call would open (and leave behind) its own TLS connection: a handshake per write, and native memory
 * that grew with the number of writes far beyond the JS heap. Credentials still come per request (a
 * rotated token is picked up); the TLS settings of a KubeConfig do not change while it runs.
 */
const dispatchers = new WeakMap<KubeConfig, Dispatcher | undefined>();

function dispatcherFor(kc: KubeConfig, ctx: RequestContext): Dispatcher | undefined {
  if (!dispatchers.has(kc)) dispatchers.set(kc, ctx.getDispatcher() as Dispatcher | undefined);
  return dispatchers.get(kc);
}

/**
 * One request to the API server with the KubeConfig's credentials, for any resource path: the typed
 * clients cover only built-in kinds, and CustomObjectsApi only /apis groups.
 * Returns the parsed JSON body; a non-2xx answer throws KubeApiError (NotFoundError, ConflictError).
 */
export async function kubeRequest(kc: KubeConfig, request: KubeRequest): Promise<unknown> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/$/, '') + request.path);
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  const method = HttpMethod[request.method];
  const ctx = new RequestContext(url.toString(), method);
  await kc.applySecurityAuthentication(ctx);
  const headers: Record<string, string> = { ...ctx.getHeaders(), accept: 'application/json' };
  if (request.body !== undefined) headers['content-type'] = request.contentType ?? 'application/json';
  let response: { status: number; text: string };
  try {
    response = await outboundCall(
      {
        deadlineMs: request.deadlineMs ?? KUBE_DEFAULT_DEADLINE_MS,
        maxBodyBytes: request.maxBodyBytes ?? KUBE_DEFAULT_MAX_BODY_BYTES,
        signal: request.signal,
      },
      async (signal) => {
        const sent = await fetch(url, {
          method: request.method,
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          dispatcher: request.ownConnection ? ctx.getDispatcher() : dispatcherFor(kc, ctx),
          signal,
        });
        return { status: sent.status, headers: Object.fromEntries(sent.headers), body: sent.body };
      },
    );
  } catch (err) {
    // The cause keeps the transport's error; the message says which call and why.
    const why = err instanceof OutboundError ? err.message : String(err);
    throw new Error(`${request.method} ${request.path}: ${why}`, { cause: err });
  }
  const { text } = response;
  if (response.status >= 200 && response.status < 300) return text === '' ? undefined : JSON.parse(text);

  const status = Status.safeParse(parseOrUndefined(text));

  const message = status.success && status.data.message ? status.data.message : `HTTP ${response.status}`;
  const reason = status.success ? status.data.reason : undefined;
  if (response.status === 404) throw new NotFoundError(message);
  if (response.status === 409) throw new ConflictError(message);
  throw new KubeApiError(response.status, message, reason);
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
