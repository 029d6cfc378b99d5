/**
 * How many provider measurements each namespace may take: a token bucket per namespace (`perMinute`
 * tokens a minute, up to `burst` saved), so a namespace with many objects, short intervals or many metrics
 * spends its own measurements and no other namespace's. The table holds the namespaces seen lately; past
 * MAX_NAMESPACES it starts over (a full bucket for each), which costs a burst, never memory.
 */

export const DEFAULT_MEASUREMENTS_PER_MINUTE = 60;
export const DEFAULT_BURST = 20;
const MAX_NAMESPACES = 10_000;

interface Bucket {
  tokens: number;
  atMs: number;
}

export type RateAnswer = { allowed: true } | { allowed: false; retryAfterMs: number };

export class NamespaceRate {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(perMinute = DEFAULT_MEASUREMENTS_PER_MINUTE, burst = DEFAULT_BURST) {
    this.#perMs = perMinute / 60_000;
    this.#burst = burst;
  }

  /** Takes `cost` tokens of the namespace's bucket at `nowMs`, or says when they will be there. */
  take(namespace: string, nowMs: number, cost = 1): RateAnswer {
    let bucket = this.#buckets.get(namespace);
    if (!bucket) {
      if (this.#buckets.size >= MAX_NAMESPACES) this.#buckets.clear();
      bucket = { tokens: this.#burst, atMs: nowMs };
      this.#buckets.set(namespace, bucket);
    }
    bucket.tokens = Math.min(this.#burst, bucket.tokens + Math.max(0, nowMs - bucket.atMs) * this.#perMs);
    bucket.atMs = Math.max(bucket.atMs, nowMs);
    const needed = Math.min(cost, this.#burst);
    if (bucket.tokens >= needed) {
      bucket.tokens -= needed;
      return { allowed: true };
    }
    return { allowed: false, retryAfterMs: Math.ceil((needed - bucket.tokens) / this.#perMs) };
  }
}
