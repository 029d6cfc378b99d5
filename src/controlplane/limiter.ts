/**
 * A per-credential limiter toward the control plane: requests per second (token bucket), requests in
 * flight (semaphore), and a pause that 429/503 with Retry-After impose on every request of that
 * credential, so a burst of objects never overruns the service. A wait has a deadline: a request that
 * would wait longer than maxWaitMs is not sent and fails with CredentialBusyError carrying when to come
 * back, so the object is requeued for after the pause instead of holding a worker.
 */
import { timerDelay } from '../lib/timer-delay.ts';
import { CancelledError, CredentialBusyError } from './errors.ts';

export interface LimiterOptions {
  /** Requests started per second; Infinity disables the bucket. */
  rps: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** The longest a request waits for a token, a slot or the end of a pause. Default 2 s. */
  maxWaitMs?: number;
  now?: () => number;
}

export const DEFAULT_MAX_WAIT_MS = 2_000;

interface Waiter {
  grant(): void;
}

export class RequestLimiter {
  readonly #rps: number;
  readonly #concurrency: number;
  readonly #now: () => number;
  #tokens: number;
  #lastRefill: number;
  #inFlight = 0;
  #pausedUntil = 0;
  readonly #maxWaitMs: number;
  readonly #waiting: Waiter[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: LimiterOptions) {
    this.#rps = options.rps;
    this.#concurrency = Math.max(1, options.concurrency);
    this.#now = options.now ?? Date.now;
    this.#maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.#tokens = Number.isFinite(this.#rps) ? Math.max(1, this.#rps) : Number.POSITIVE_INFINITY;
    this.#lastRefill = this.#now();
  }

  /**
   * Runs fn once a token and a slot are free, if that is within maxWaitMs: otherwise throws
   * CredentialBusyError (a pause longer than that throws at once). The signal cancels the wait.
   */
  async run<T>(
    fn: () => Promise<T>,
    options: { operation?: string; signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    const operation = options.operation ?? 'request';
    const { signal } = options;
    if (signal?.aborted) throw new CancelledError(operation);
    const pausedFor = this.#pausedUntil - this.#now();
    if (pausedFor > this.#maxWaitMs) {
      throw new CredentialBusyError(
        operation,
        `the control plane asked this credential to pause for ${Math.ceil(pausedFor / 1000)}s`,
        pausedFor,
      );
    }
    await new Promise<void>((resolve, reject) => {
      const leave = (err: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.#waiting.indexOf(waiter);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(err);
      };
      const onAbort = () => leave(new CancelledError(operation));
      const timer = setTimeout(() => {
        const paused = this.#pausedUntil - this.#now();
        const why =
          paused > 0
            ? `the control plane asked this credential to pause for ${Math.ceil(paused / 1000)}s`
            : `no request slot of this credential came free within ${this.#maxWaitMs} ms`;
        leave(new CredentialBusyError(operation, why, Math.max(paused, this.#maxWaitMs)));
      }, timerDelay(this.#maxWaitMs));
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#pump();
    });
    try {
      return await fn();
    } finally {
      this.#inFlight -= 1;
      this.#pump();
    }
  }

  /** No request of this credential starts for ms (the server asked for it). */
  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + timerDelay(ms));
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Nothing in flight, nobody waiting, no pause to keep: dropping it loses nothing. */
  idle(): boolean {
    return this.#inFlight === 0 && this.#waiting.length === 0 && this.#now() >= this.#pausedUntil;
  }

  #pump(): void {
    while (this.#waiting.length > 0 && this.#inFlight < this.#concurrency) {
      const now = this.#now();
      if (now < this.#pausedUntil) {
        this.#wake(this.#pausedUntil - now);
        return;
      }
      this.#refill(now);
      if (this.#tokens < 1) {
        this.#wake(Math.ceil(((1 - this.#tokens) * 1000) / this.#rps));
        return;
      }
      this.#tokens -= 1;
      this.#inFlight += 1;
      this.#waiting.shift()?.grant();
    }
  }

  #refill(now: number): void {
    if (!Number.isFinite(this.#rps)) return;
    this.#tokens = Math.min(
      Math.max(1, this.#rps),
      this.#tokens + ((now - this.#lastRefill) * this.#rps) / 1000,
    );
    this.#lastRefill = now;
  }

  #wake(ms: number): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#pump();
    }, timerDelay(ms));
  }
}
