/**
 * A per-credential limiter toward the control plane: requests per second (token bucket), requests in
 * flight (semaphore), and a pause that 429/503 with Retry-After impose on every request of that
 * credential, so a burst of objects never overruns the service.
 */
export interface LimiterOptions {
  /** Requests started per second; Infinity disables the bucket. */
  rps: number;
  /** Requests in flight at once. */
  concurrency: number;
  now?: () => number;
}

export class RequestLimiter {
  readonly #rps: number;
  readonly #concurrency: number;
  readonly #now: () => number;
  #tokens: number;
  #lastRefill: number;
  #inFlight = 0;
  #pausedUntil = 0;
  readonly #waiting: Array<() => void> = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: LimiterOptions) {
    this.#rps = options.rps;
    this.#concurrency = Math.max(1, options.concurrency);
    this.#now = options.now ?? Date.now;
    this.#tokens = Number.isFinite(this.#rps) ? Math.max(1, this.#rps) : Number.POSITIVE_INFINITY;
    this.#lastRefill = this.#now();
  }

  /** Runs fn once a token and a slot are free. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
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
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + ms);
  }

  get inFlight(): number {
    return this.#inFlight;
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
      this.#waiting.shift()?.();
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
    }, ms);
  }
}
