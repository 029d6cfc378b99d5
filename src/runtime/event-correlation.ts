/**
 * What the Kubernetes event recorder (client-go tools/record, events_cache.go) decides before an Event is
 * written, so that a busy or failing object costs the API server few Event writes:
 * - similar events (one object, type and reason; messages differing) become one combined Event once 10
 *   different messages came within 10 minutes of each other: "(combined from similar events): <latest>",
 *   written to a single Event whose count grows;
 * - the spam filter: each object may have 25 events of a type at once, then one more every 5 minutes
 *   (a token bucket); the others are dropped, and a dropped repeat still counts on its Event.
 * Identical events (same message) are the recorder's own: it bumps the count of the Event it wrote.
 */

export const AGGREGATE_MAX_EVENTS = 10;
export const AGGREGATE_WINDOW_MS = 10 * 60_000;
export const SPAM_BURST = 25;
/** One token every 5 minutes (client-go's qps of 1/300). */
export const SPAM_REFILL_MS = 300_000;
export const COMBINED_PREFIX = '(combined from similar events): ';
/** client-go's LRU size for each of its caches. */
const MAX_REMEMBERED = 4096;

export interface EventSubject {
  namespace: string;
  name: string;
  uid: string;
}

/** An event: its message (combined or not), the key of the Event it counts on, and the spam filter's verdict. */
export interface CorrelatedEvent {
  key: string;
  message: string;
  dropped: boolean;
}

interface Similar {
  messages: Set<string>;
  lastSeen: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Reads `key` and moves it to the newest end, so the first key is the least recently used. */
function touch<V>(map: Map<string, V>, key: string): V | undefined {
  const value = map.get(key);
  if (value !== undefined) {
    map.delete(key);
    map.set(key, value);
  }
  return value;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_REMEMBERED) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}

export class EventCorrelator {
  readonly #similar = new Map<string, Similar>();
  readonly #buckets = new Map<string, Bucket>();

  correlate(
    subject: EventSubject,
    type: string,
    reason: string,
    message: string,
    now: number,
  ): CorrelatedEvent {
    // The uid names the object (its namespace and name add nothing, and cost memory in every key of
    // the three tables); NUL occurs in none of the parts but the message, which comes last.
    const object = `${subject.uid || `${subject.namespace}/${subject.name}`}\u0000${type}`;
    const similarKey = `${object}\u0000${reason}`;
    let similar = touch(this.#similar, similarKey);
    if (similar === undefined || now - similar.lastSeen > AGGREGATE_WINDOW_MS)
      similar = { messages: new Set(), lastSeen: now };
    similar.messages.add(message);
    similar.lastSeen = now;
    remember(this.#similar, similarKey, similar);
    let event = { key: `${similarKey}\u0000${message}`, message };
    if (similar.messages.size >= AGGREGATE_MAX_EVENTS) {
      // As client-go: one message leaves the set, so the next new one is combined again.
      const first = similar.messages.values().next();
      if (!first.done) similar.messages.delete(first.value);
      event = { key: similarKey, message: `${COMBINED_PREFIX}${message}` };
    }
    return { ...event, dropped: !this.#accepts(object, now) };
  }

  /** The spam filter's token bucket for one object and type: SPAM_BURST, refilled one per SPAM_REFILL_MS. */
  #accepts(key: string, now: number): boolean {
    const bucket = touch(this.#buckets, key) ?? { tokens: SPAM_BURST, at: now };
    bucket.tokens = Math.min(SPAM_BURST, bucket.tokens + (now - bucket.at) / SPAM_REFILL_MS);
    bucket.at = now;
    remember(this.#buckets, key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
