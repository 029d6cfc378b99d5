/**
 * One request to the API server, for any resource path, through the access's shared connection pool,
 * with the limits every outbound call has (a total deadline, a body cap, the caller's signal).
 * A non-2xx answer throws KubeApiError (NotFoundError, ConflictError) with the server's Status message.
 */
import { z } from 'zod';
import { OutboundError, outboundCall } from '../lib/outbound.ts';
import type { KubeAccess, KubeConnection } from './access.ts';
import { ConflictError, KubeApiError, NotFoundError } from './errors.ts';

export type KubeMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface KubeRequest {
  method: KubeMethod;
  /** Absolute API path, e.g. /api/v1/namespaces/default/configmaps/x */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
  /** Default application/json; a metadata-only read asks for PartialObjectMetadata(List). */
  accept?: string;
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

/** The path with its query string (undefined values left out). */
export function requestPath(path: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** Returns the parsed JSON body (undefined for an empty one). */
export async function kubeRequest(access: KubeAccess, request: KubeRequest): Promise<unknown> {
  const text = await kubeRequestText(access, request);
  return text === '' ? undefined : JSON.parse(text);
}

/** The same, returning the body as text: for a caller that parses a large list itself. */
export async function kubeRequestText(access: KubeAccess, request: KubeRequest): Promise<string> {
  let own: (KubeConnection & { close(): void }) | undefined;
  let response: { status: number; text: string };
  let answered = false;
  try {
    if (request.ownConnection) own = await access.ownConnection();
    const connection = own ?? (await access.connection());
    const headers: Record<string, string | string[]> = {
      ...connection.headers,
      accept: request.accept ?? 'application/json',
    };
    if (request.body !== undefined) headers['content-type'] = request.contentType ?? 'application/json';
    response = await outboundCall(
      {
        deadlineMs: request.deadlineMs ?? KUBE_DEFAULT_DEADLINE_MS,
        maxBodyBytes: request.maxBodyBytes ?? KUBE_DEFAULT_MAX_BODY_BYTES,
        signal: request.signal,
      },
      async (signal) => {
        const sent = await connection.dispatcher.request({
          origin: access.server,
          path: requestPath(request.path, request.query),
          method: request.method,
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal,
        });
        answered = true;
        access.answered(request.method, sent.statusCode);
        return { status: sent.statusCode, headers: sent.headers, body: sent.body };
      },
    );
  } catch (err) {
    if (!answered) access.answered(request.method, undefined);
    // The cause keeps the transport's error; the message says which call and why.
    const why = err instanceof OutboundError ? err.message : err instanceof Error ? err.message : String(err);
    throw new Error(`${request.method} ${request.path}: ${why}`, { cause: err });
  } finally {
    own?.close();
  }
  if (response.status >= 200 && response.status < 300) return response.text;
  if (response.status === 401) access.refused();
  throw statusError(response.status, response.text);
}

/** The typed error of a non-2xx answer, with the server's Status message when it sent one. */
export function statusError(status: number, text: string): KubeApiError {
  const parsed = Status.safeParse(parseOrUndefined(text));
  const message = parsed.success && parsed.data.message ? parsed.data.message : `HTTP ${status}`;
  const reason = parsed.success ? parsed.data.reason : undefined;
  if (status === 404) return new NotFoundError(message);
  if (status === 409) return new ConflictError(message);
  return new KubeApiError(status, message, reason);
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
