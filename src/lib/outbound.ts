/**
 * Limits every outbound HTTP call shares (control plane, agent servers, Kubernetes API): a total
 * deadline, not an idle timer, so a server that trickles a byte at a time cannot hold a call; the
 * caller's signal (shutdown, end of a pass) aborts it too; and a cap on the response body, read as a
 * stream and abandoned past the cap, so a huge body cannot exhaust memory. Each client sends the request
 * its own way and turns OutboundError into its own typed errors.
 */
import { AbortScope } from './abort-scope.ts';
import { formatDuration } from './duration.ts';

export interface OutboundLimits {
  /** The whole call, response body included, must end within this. */
  deadlineMs: number;
  /** Bytes of response body read before the call is abandoned. */
  maxBodyBytes: number;
  /** Aborts the call (shutdown, the pass ended). */
  signal?: AbortSignal | undefined;
}

/** What a client's send function returns: status, headers and the body as a byte stream. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array> | null;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export type OutboundFailure = 'deadline' | 'body-too-large' | 'aborted' | 'transport';

export class OutboundError extends Error {
  readonly kind: OutboundFailure;
  /** The transport's error code (ECONNREFUSED, UND_ERR_SOCKET...), for kind 'transport'. */
  readonly code: string | undefined;
  constructor(kind: OutboundFailure, message: string, options: { cause?: unknown; code?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OutboundError';
    this.kind = kind;
    this.code = options.code;
  }
}

/**
 * Runs `send` with a signal that aborts at the deadline, on the caller's signal, or when the body goes
 * past the cap; reads the whole body within the same deadline. Every failure is an OutboundError.
 */
export async function outboundCall(
  limits: OutboundLimits,
  send: (signal: AbortSignal) => Promise<RawResponse>,
): Promise<OutboundResponse> {
  // One scope for the deadline, the caller's signal and the body cap (abort-scope.ts says why not
  // AbortSignal.any).
  const scope = new AbortScope([limits.signal], limits.deadlineMs);
  const why = (err: unknown): OutboundError => {
    if (err instanceof OutboundError) return err;
    if (limits.signal?.aborted) {
      // The caller's deadline (a reconcile pass's) is a deadline, not a shutdown.
      const reason: unknown = limits.signal.reason;
      if (reason instanceof DOMException && reason.name === 'TimeoutError') {
        return new OutboundError('deadline', 'the reconcile pass reached its deadline');
      }
      return new OutboundError('aborted', 'the call was cancelled (stopping)');
    }
    if (scope.timedOut) {
      return new OutboundError('deadline', `no complete answer within ${formatDuration(limits.deadlineMs)}`);
    }
    const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
    const message = err instanceof Error ? err.message : String(err);
    return new OutboundError('transport', message, { cause: err, ...(code ? { code } : {}) });
  };
  if (limits.signal?.aborted) throw why(undefined);
  try {
    const response = await send(scope.signal);
    const declared = Number(headerValue(response.headers['content-length']));
    if (Number.isFinite(declared) && declared > limits.maxBodyBytes) {
      scope.abort();
      await discard(response.body);
      throw tooLarge(limits.maxBodyBytes);
    }
    const text = await readCapped(response.body, limits.maxBodyBytes, () => scope.abort());
    return { status: response.status, headers: response.headers, text };
  } catch (err) {
    throw why(err);
  } finally {
    scope.end();
  }
}

function tooLarge(maxBytes: number): OutboundError {
  return new OutboundError('body-too-large', `the response body is larger than ${maxBytes} bytes`);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Reads the stream as UTF-8 text; past maxBytes it stops reading (which destroys the stream) and throws. */
async function readCapped(
  body: AsyncIterable<Uint8Array> | null,
  maxBytes: number,
  onOverflow: () => void,
): Promise<string> {
  if (body === null) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      onOverflow();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** Drops a body not read (the signal already aborted it); errors from the aborted stream are expected. */
async function discard(body: AsyncIterable<Uint8Array> | null): Promise<void> {
  if (body === null) return;
  const destroyable = body as { destroy?: () => void; cancel?: () => Promise<void> };
  try {
    if (destroyable.destroy) destroyable.destroy();
    else await destroyable.cancel?.();
  } catch {
    // already aborted
  }
}
