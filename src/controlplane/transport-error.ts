/**
 * A failure below HTTP as a typed error: the reason from the error code (the original error kept as the
 * cause), and whether the request reached the server at all (the circuit breaker asks).
 */
import { OutboundError } from '../lib/outbound.ts';
import { CancelledError, ControlPlaneError, UnavailableError } from './errors.ts';

const TRANSPORT_REASONS: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the response headers',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the response body',
  UND_ERR_SOCKET: 'the connection was closed',
  UND_ERR_CLOSED: 'the connection pool is closed',
  UND_ERR_DESTROYED: 'the connection pool is closed',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  ETIMEDOUT: 'connect timed out',
};

/**
 * Codes of a connection that was never made: nothing of the request reached the server. (ETIMEDOUT is
 * left out: an established connection can end with it too.)
 */
const UNSENT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** A failure below HTTP: the reason from the error code; the original error is kept as the cause. */
export function transportError(operation: string, err: unknown): ControlPlaneError {
  if (err instanceof ControlPlaneError) return err;
  if (err instanceof OutboundError) {
    if (err.kind === 'aborted') return new CancelledError(operation);
    if (err.kind !== 'transport') return new UnavailableError(operation, err.message, { cause: err });
    const reason =
      (err.code && TRANSPORT_REASONS[err.code]) ?? `request failed${err.code ? ` (${err.code})` : ''}`;
    return new UnavailableError(operation, reason, {
      cause: err.cause,
      unsent: UNSENT_CODES.has(err.code ?? ''),
    });
  }
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
  const reason = (code && TRANSPORT_REASONS[code]) ?? `request failed${code ? ` (${code})` : ''}`;
  return new UnavailableError(operation, reason, { cause: err, unsent: UNSENT_CODES.has(code ?? '') });
}
