/**
 * Typed errors of the control-plane client, one class per thing a reconciler does differently.
 * Messages carry the operation, the status and what the server said about the request (detail, the
 * loc/msg of validation errors), never a credential, a request body or a response body. What the server
 * said is peer text: it is cleaned (cleanPeerText: no control characters or terminal escapes, bounded)
 * here, where it enters, so every condition, event and log line built from these errors gets it clean.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { cleanPeerText } from '../lib/peer-text.ts';
import type { Outcome } from '../runtime/outcome.ts';
import { DetailError, HTTPValidationError } from './schemas.ts';

type ErrorOptions = { operation: string; status?: number | undefined; cause?: unknown };

/** The most of a list of issues a message carries (a 422 may list many). */
const MAX_LISTED_CHARS = 1000;

export class ControlPlaneError extends Error {
  readonly operation: string;
  readonly status: number | undefined;
  /** True when the same request may succeed later (back-pressure, outage, timeout). */
  readonly retryable: boolean;

  constructor(message: string, options: ErrorOptions, retryable: boolean) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.operation = options.operation;
    this.status = options.status;
    this.retryable = retryable;
  }
}

/** The credentials cannot be used as configured; no request was sent. */
export class CredentialsConfigError extends ControlPlaneError {
  constructor(message: string) {
    super(message, { operation: 'configure credentials' }, false);
  }
}

export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };

/** 422: the server refused the request's shape or values. */
export class ValidationFailedError extends ControlPlaneError {
  readonly issues: ValidationIssue[];

  constructor(operation: string, issues: ValidationIssue[]) {
    const listed = issues.map((i) => (i.loc.length > 0 ? `${i.loc.join('.')}: ${i.msg}` : i.msg)).join('; ');
    super(
      `${operation}: the control plane refused the request (422): ${cleanPeerText(listed, MAX_LISTED_CHARS) || 'no details given'}`,
      { operation, status: 422 },
      false,
    );
    this.issues = issues;
  }
}

/** 400: for example a change to an immutable field, or a deployment name already taken. */
export class BadRequestError extends ControlPlaneError {
  readonly detail: string;

  constructor(operation: string, detail: string) {
    super(
      `${operation}: the control plane refused the request (400): ${detail || 'no details given'}`,
      {
        operation,
        status: 400,
      },
      false,
    );
    this.detail = detail;
  }
}

/** 401 or 403: the credentials are wrong or lack permission. */
export class UnauthorizedError extends ControlPlaneError {
  readonly detail: string;

  constructor(operation: string, status: number, detail: string) {
    const what = status === 403 ? 'forbidden' : 'unauthorized';
    super(`${operation}: ${what} (${status})${detail ? `: ${detail}` : ''}`, { operation, status }, false);
    this.detail = detail;
  }
}

export class NotFoundError extends ControlPlaneError {
  readonly detail: string;

  constructor(operation: string, detail: string) {
    super(`${operation}: not found (404)${detail ? `: ${detail}` : ''}`, { operation, status: 404 }, false);
    this.detail = detail;
  }
}

export class ConflictError extends ControlPlaneError {
  readonly detail: string;

  constructor(operation: string, detail: string) {
    super(`${operation}: conflict (409)${detail ? `: ${detail}` : ''}`, { operation, status: 409 }, false);
    this.detail = detail;
  }
}

/** 429: back off; `retryAfterMs` is what the server asked for, when it said. */
export class RateLimitedError extends ControlPlaneError {
  readonly retryAfterMs: number | undefined;

  constructor(operation: string, retryAfterMs: number | undefined) {
    super(
      `${operation}: rate limited (429)${retryAfterMs === undefined ? '' : `, retry after ${retryAfterMs} ms`}`,
      { operation, status: 429 },
      true,
    );
    this.retryAfterMs = retryAfterMs;
  }
}

/** 5xx, a refused or dropped connection, or a timeout. `status` is unset when no response came. */
export class UnavailableError extends ControlPlaneError {
  readonly retryAfterMs: number | undefined;
  /**
   * No connection was made (refused, not found, connect timed out): nothing of the request reached the
   * server, so the failure cannot be its answer to what was sent (circuit-breaker.ts).
   */
  readonly unsent: boolean;

  constructor(
    operation: string,
    reason: string,
    options: { status?: number; retryAfterMs?: number | undefined; cause?: unknown; unsent?: boolean } = {},
  ) {
    const { unsent = false, ...rest } = options;
    super(`${operation}: control plane unavailable: ${reason}`, { operation, ...rest }, true);
    this.retryAfterMs = options.retryAfterMs;
    this.unsent = unsent;
  }
}

/** The call was cancelled before it ended: the operator is stopping, or the pass it served ended. */
export class CancelledError extends ControlPlaneError {
  constructor(operation: string) {
    super(`${operation}: cancelled (the operator is stopping)`, { operation }, false);
  }
}

/**
 * No request was sent: this credential must wait longer than a worker may (a pause the server asked
 * for, or every slot taken). The object comes back after `retryAfterMs` instead of holding a worker.
 */
export class CredentialBusyError extends ControlPlaneError {
  readonly retryAfterMs: number;

  constructor(operation: string, why: string, retryAfterMs: number) {
    super(`${operation}: not sent: ${why}`, { operation }, true);
    this.retryAfterMs = retryAfterMs;
  }
}

export type MalformedIssue = { path: string; code: string };

/** A response body that is not JSON or does not have the expected shape. */
export class MalformedResponseError extends ControlPlaneError {
  readonly issues: MalformedIssue[];

  constructor(operation: string, status: number, what: string, issues: MalformedIssue[] = []) {
    // Paths name the answer's keys, which the server chose.
    const listed = cleanPeerText(issues.map((i) => `${i.path} (${i.code})`).join(', '), MAX_LISTED_CHARS);
    super(
      `${operation}: malformed response (${status}): ${what}${listed ? `: ${listed}` : ''}`,
      {
        operation,
        status,
      },
      false,
    );
    this.issues = issues;
  }
}

/**
 * The credential's circuit is open (circuit-breaker.ts): no request was sent. Retry after retryAfterMs,
 * when the breaker's own probe may have found the server answering again.
 */
export class CircuitOpenError extends ControlPlaneError {
  readonly retryAfterMs: number;
  constructor(operation: string, message: string, retryAfterMs: number) {
    super(`${operation}: ${message}`, { operation }, true);
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * A walk over a listing's pages reached a bound no real tenant reaches (pages or bytes): the server never
 * ends it. Not retried soon: the object waits with the bound named, and the controller's memory is safe.
 */
export class BudgetExceededError extends ControlPlaneError {
  constructor(operation: string, what: string, abandoned = 'the listing was abandoned') {
    super(`${operation}: ${what}; ${abandoned}`, { operation, status: 200 }, false);
  }
}

/**
 * One answer larger than a call may read: the call's budget, not the server's health. It never counts
 * toward the circuit breaker (one tenant's big objects must not park a credential for every namespace)
 * and is not retried; the batched poll splits the page that overflowed (observer.ts).
 */
export class ResponseTooLargeError extends BudgetExceededError {
  readonly maxBodyBytes: number;
  constructor(operation: string, maxBodyBytes: number) {
    super(operation, `the answer is larger than ${maxBodyBytes} bytes`, 'the call was abandoned');
    this.maxBodyBytes = maxBodyBytes;
  }
}

/**
 * A namespace's credentials Secrets already bring in as many credential identities (base URL and key
 * pairs) as one namespace may use: each costs a limiter, a circuit breaker, a poll group and a template
 * snapshot. No request was sent; the object waits until one of the namespace's identities goes unused.
 */
export class IdentityLimitError extends ControlPlaneError {
  constructor(namespace: string, limit: number, setting: string) {
    super(
      `namespace ${namespace} already uses ${limit} credential identities (base URL and key pairs of its credentials Secrets), the most one namespace may (${setting}); nothing was sent with these credentials`,
      { operation: 'configure credentials' },
      false,
    );
  }
}

/** Any other status the contract does not describe. */
export class UnexpectedStatusError extends ControlPlaneError {
  constructor(operation: string, status: number) {
    super(`${operation}: unexpected response status ${status}`, { operation, status }, false);
  }
}

/** The longest pause a server can ask for; far below setTimeout's limit, which a longer one would overflow. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * Retry-After as milliseconds from `now`, at most MAX_RETRY_AFTER_MS: delay-seconds or an HTTP date (a date in the past gives 0).
 * Anything else gives undefined.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Math.min(MAX_RETRY_AFTER_MS, Number(raw) * 1000);
  // Only date-shaped text: Date.parse would also accept things like "1.5".
  if (!/[a-z]/i.test(raw)) return undefined;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - now));
}

const MAX_DETAIL_CHARS = 500;
/** A loc element is a field name or an index: short. */
const MAX_LOC_CHARS = 100;

/** Removes every occurrence of the given secret values from a peer's text, then cleans and bounds it. */
export function redact(text: string, secrets: readonly string[], max = MAX_DETAIL_CHARS): string {
  let out = text;
  for (const secret of secrets) {
    // Very short values would blank out ordinary words; credentials and secrets are longer.
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return cleanPeerText(out, max);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The typed error for a non-2xx response. `secrets` are values to strip from anything the server said
 * (credentials, secret values of the request), in case it echoes them.
 */
export function errorFromResponse(args: {
  operation: string;
  status: number;
  headers: IncomingHttpHeaders;
  bodyText: string;
  secrets: readonly string[];
  now?: number;
}): ControlPlaneError {
  const { operation, status, headers, secrets } = args;
  const body = parseJson(args.bodyText);
  const detailResult = DetailError.safeParse(body);
  const detail = detailResult.success ? redact(detailResult.data.detail, secrets) : '';
  const retryAfterMs = parseRetryAfter(headers['retry-after'], args.now);

  switch (true) {
    case status === 400:
      return new BadRequestError(operation, detail);
    case status === 401 || status === 403:
      return new UnauthorizedError(operation, status, detail);
    case status === 404:
      return new NotFoundError(operation, detail);
    case status === 409:
      return new ConflictError(operation, detail);
    case status === 422: {
      const parsed = HTTPValidationError.safeParse(body);
      const issues = parsed.success
        ? parsed.data.detail.map((i) => ({
            loc: i.loc.map((l) => (typeof l === 'string' ? redact(l, secrets, MAX_LOC_CHARS) : l)),
            msg: redact(i.msg, secrets),
            type: redact(i.type, secrets, MAX_LOC_CHARS),
          }))
        : [];
      if (!parsed.success && detail) issues.push({ loc: [], msg: detail, type: 'detail' });
      return new ValidationFailedError(operation, issues);
    }
    case status === 429:
      return new RateLimitedError(operation, retryAfterMs);
    case status === 408 || status >= 500:
      return new UnavailableError(operation, `HTTP ${status}${detail ? `: ${detail}` : ''}`, {
        status,
        retryAfterMs,
      });
    default:
      return new UnexpectedStatusError(operation, status);
  }
}

/** What a control-plane error means for the object: refused (a person fixes the spec), waiting, or transient. */
export function outcomeOfControlPlaneError(err: unknown): Outcome | undefined {
  if (err instanceof ValidationFailedError || err instanceof BadRequestError) {
    return { kind: 'stalled', reason: 'Rejected', message: err.message };
  }
  // Fixed in a Secret or on the service side, not in the object: keep trying at the poll interval.
  if (err instanceof UnauthorizedError || err instanceof CredentialsConfigError) {
    return { kind: 'waiting', reason: 'Unauthorized', message: err.message };
  }
  if (err instanceof BudgetExceededError || err instanceof IdentityLimitError) {
    return { kind: 'waiting', reason: 'BudgetExceeded', message: err.message };
  }
  if (err instanceof MalformedResponseError) {
    return { kind: 'transient', reason: 'MalformedResponse', message: err.message };
  }
  if (err instanceof ControlPlaneError) {
    return { kind: 'transient', reason: 'ControlPlaneUnavailable', message: err.message };
  }
  return undefined;
}
