/**
 * One watch request: the API server's stream of JSON events, one per line, handed over as they arrive.
 * The server ends the stream after `timeoutSeconds`; a stream that is still open well past that (a
 * half-open connection after a network fault) is cut by a deadline of its own, so a watch can never
 * hang forever. A line larger than any object the API server stores is refused, not buffered.
 */
import type { Dispatcher } from 'undici';
import { AbortScope } from '../lib/abort-scope.ts';
import type { KubeAccess, KubeConnection } from './access.ts';
import { requestPath, statusError } from './request.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: Record<string, unknown>;
}

export interface WatchRequest {
  /** Collection path, e.g. /api/v1/namespaces/a/secrets */
  path: string;
  resourceVersion: string;
  labelSelector?: string | undefined;
  /** e.g. metadata.name=x: one object of the collection. */
  fieldSelector?: string | undefined;
  /** The server ends the watch after this (client-go picks 5 to 10 minutes at random). */
  timeoutSeconds: number;
  /** Default application/json; a metadata-only watch asks for PartialObjectMetadata. */
  accept?: string;
  signal: AbortSignal;
}

/**
 * A watch that ends sooner than this is a fault, not the server's timeout (which ends a watch after
 * timeoutSeconds, 5 to 10 minutes): it is retried after a backoff, as client-go's reflector does with
 * a "very short watch". client-go lets such a watch go when it carried events; here it backs off all
 * the same, so that a proxy which closes every stream after its first bytes is not asked again at once.
 */
export const SHORT_WATCH_MS = 1000;

/** client-go's choice: each watch asks the server to end it after 5 to 10 minutes, spread at random. */
export function watchTimeoutSeconds(): number {
  return 300 + Math.floor(Math.random() * 300);
}

/** Past timeoutSeconds, how long a silent stream is given before it is cut. */
const GRACE_MS = 30_000;
/** etcd refuses objects over 1.5 MiB; a line far past that is not an event. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

export class WatchError extends Error {
  /** The HTTP status, or the code of an ERROR event's Status (410: the resourceVersion is too old). */
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = 'WatchError';
    this.status = status;
  }
}

/**
 * Watches until the server ends the stream (resolves) or it fails (rejects: transport, a non-2xx
 * answer, a malformed line). ERROR events are handed to `onEvent` like the others.
 */
export async function watchStream(
  access: KubeAccess,
  request: WatchRequest,
  onEvent: (event: WatchEvent) => void,
): Promise<void> {
  const connection = await access.connection();
  // Ended when the watch does (abort-scope.ts): a timeout signal would fire at its deadline anyway.
  const deadline = new AbortScope([request.signal], request.timeoutSeconds * 1000 + GRACE_MS);
  try {
    await watchWithin(deadline, access, connection, request, onEvent);
  } finally {
    deadline.end();
  }
}

async function watchWithin(
  deadline: AbortScope,
  access: KubeAccess,
  { headers, dispatcher }: KubeConnection,
  request: WatchRequest,
  onEvent: (event: WatchEvent) => void,
): Promise<void> {
  let response: Dispatcher.ResponseData;
  try {
    response = await dispatcher.request({
      origin: access.server,
      path: requestPath(request.path, {
        watch: 'true',
        resourceVersion: request.resourceVersion,
        allowWatchBookmarks: 'true',
        timeoutSeconds: String(request.timeoutSeconds),
        labelSelector: request.labelSelector,
        fieldSelector: request.fieldSelector,
      }),
      method: 'GET',
      headers: { ...headers, accept: request.accept ?? 'application/json' },
      // The deadline above bounds the stream; undici's own 300 s idle limit would cut a quiet watch first.
      bodyTimeout: 0,
      signal: deadline.signal,
    });
  } catch (err) {
    if (request.signal.aborted) return;
    access.answered('GET', undefined);
    if (deadline.timedOut) throw new WatchError('the watch request had no answer before its deadline');
    throw err;
  }
  access.answered('GET', response.statusCode);
  if (response.statusCode < 200 || response.statusCode >= 300) {
    const text = await response.body.text().catch(() => '');
    if (response.statusCode === 401) access.refused();
    const err = statusError(response.statusCode, text);
    throw new WatchError(err.message, response.statusCode);
  }
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const emit = (line: Buffer) => {
    if (line.length === 0) return;
    let event: WatchEvent;
    try {
      event = JSON.parse(line.toString('utf8')) as WatchEvent;
    } catch {
      throw new WatchError('the watch stream sent a line that is not JSON');
    }
    if (typeof event?.type !== 'string' || typeof event.object !== 'object' || event.object === null) {
      throw new WatchError('the watch stream sent a line that is not an event');
    }
    onEvent(event);
  };
  try {
    for await (const chunk of response.body) {
      let data = chunk as Buffer;
      let newline = data.indexOf(10);
      while (newline !== -1) {
        const head = data.subarray(0, newline);
        emit(pending.length === 0 ? head : Buffer.concat([...pending, head]));
        pending = [];
        pendingBytes = 0;
        data = data.subarray(newline + 1);
        newline = data.indexOf(10);
      }
      if (data.length > 0) {
        pendingBytes += data.length;
        if (pendingBytes > MAX_LINE_BYTES)
          throw new WatchError(`a watch event is larger than ${MAX_LINE_BYTES} bytes`);
        pending.push(data);
      }
    }
    if (pendingBytes > 0) emit(Buffer.concat(pending));
  } catch (err) {
    response.body.destroy();
    if (request.signal.aborted) return;
    if (deadline.timedOut) throw new WatchError('the watch stream stayed open past its timeout');
    throw err;
  }
}
