/**
 * The delay before an informer lists or watches again after a failure, as client-go's reflector
 * computes it (wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0)): the base starts at 800 ms
 * and doubles after every wait up to 30 s; each wait is the base plus up to as much again at random
 * (jitter 1.0), so a cluster's informers do not retry in step; and the base goes back to 800 ms once
 * two minutes pass without a wait (the API server is taken to be healthy again). Against an API server
 * that fails everything, one informer settles at one request every 30 to 60 s.
 */
export interface WatchBackoffOptions {
  /** Default 800 ms. */
  initialMs?: number | undefined;
  /** Cap of the base (the wait itself reaches up to twice this); default 30 s. */
  maxMs?: number | undefined;
  /** A wait this long after the previous one starts from initialMs again; default 2 min. */
  resetAfterMs?: number | undefined;
  /** Monotonic milliseconds; default performance.now. */
  now?: () => number;
  /** In [0, 1); default Math.random. */
  random?: () => number;
}

export const WATCH_BACKOFF_INITIAL_MS = 800;
export const WATCH_BACKOFF_MAX_MS = 30_000;
export const WATCH_BACKOFF_RESET_AFTER_MS = 120_000;
const FACTOR = 2;
const JITTER = 1;

export class WatchBackoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #resetAfterMs: number;
  readonly #now: () => number;
  readonly #random: () => number;
  #baseMs: number;
  #lastAt: number;

  constructor(options: WatchBackoffOptions = {}) {
    this.#initialMs = options.initialMs ?? WATCH_BACKOFF_INITIAL_MS;
    this.#maxMs = options.maxMs ?? WATCH_BACKOFF_MAX_MS;
    this.#resetAfterMs = options.resetAfterMs ?? WATCH_BACKOFF_RESET_AFTER_MS;
    this.#now = options.now ?? (() => performance.now());
    this.#random = options.random ?? Math.random;
    this.#baseMs = this.#initialMs;
    this.#lastAt = this.#now();
  }

  /** How long to wait now; every call counts as a wait taken. */
  next(): number {
    const now = this.#now();
    if (now - this.#lastAt > this.#resetAfterMs) this.#baseMs = this.#initialMs;
    this.#lastAt = now;
    const base = this.#baseMs;
    this.#baseMs = Math.min(base * FACTOR, this.#maxMs);
    return Math.round(base + this.#random() * JITTER * base);
  }
}
