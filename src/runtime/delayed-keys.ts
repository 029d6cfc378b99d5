import { MinHeap } from '../lib/min-heap.ts';
import { timerDelay } from '../lib/timer-delay.ts';
import type { Clock } from './clock.ts';

/**
 * Keys waiting for a time, and one timer for the earliest: 10,000 objects each waiting for its resync
 * cost a map entry and a heap entry each, not a timer each (a timer, its closure and the timer lists
 * of its duration are over 1 KB per key). Heap entries of a key whose time moved earlier are skipped
 * when they come up. The work queue's addAfter.
 */
export class DelayedKeys {
  readonly #clock: Clock;
  readonly #onDue: (key: string, first: boolean) => void;
  readonly #delayed = new Map<string, number>();
  readonly #due = new MinHeap<string>();
  /** Keys that go first when they are due (see WorkQueue.add). */
  readonly #firstWhenDue = new Set<string>();
  #dueTimer: { at: number; handle: unknown } | undefined;

  /** `onDue` receives each key when its time comes, with whether it was scheduled to go first. */
  constructor(clock: Clock, onDue: (key: string, first: boolean) => void) {
    this.#clock = clock;
    this.#onDue = onDue;
  }

  /** Keys scheduled. */
  get size(): number {
    return this.#delayed.size;
  }

  /** Schedules the key for `at`; when the key is already scheduled, the earlier time wins. */
  schedule(key: string, at: number, first: boolean): void {
    const existing = this.#delayed.get(key);
    if (existing !== undefined && existing <= at) return;
    this.#delayed.set(key, at);
    if (first) this.#firstWhenDue.add(key);
    else this.#firstWhenDue.delete(key);
    this.#due.push(at, key);
    this.#armDueTimer();
  }

  /** Drops every scheduled key and the timer. */
  clear(): void {
    if (this.#dueTimer) this.#clock.clearTimeout(this.#dueTimer.handle);
    this.#dueTimer = undefined;
    this.#delayed.clear();
    this.#due.clear();
    this.#firstWhenDue.clear();
  }

  /** Hands over every key whose time has come, then sets the timer for the next. */
  #addDue(): void {
    const now = this.#clock.now();
    for (let next = this.#due.peek(); next && next.priority <= now; next = this.#due.peek()) {
      this.#due.pop();
      // A key whose time moved earlier (already added, or still waiting for another time) is skipped.
      if (this.#delayed.get(next.item) !== next.priority) continue;
      this.#delayed.delete(next.item);
      const first = this.#firstWhenDue.delete(next.item);
      this.#onDue(next.item, first);
    }
    this.#armDueTimer();
  }

  #armDueTimer(): void {
    // Entries superseded by an earlier time for their key, when they come up: no timer for them.
    let next = this.#due.peek();
    while (next && this.#delayed.get(next.item) !== next.priority) {
      this.#due.pop();
      next = this.#due.peek();
    }
    if (this.#dueTimer && (!next || this.#dueTimer.at !== next.priority)) {
      this.#clock.clearTimeout(this.#dueTimer.handle);
      this.#dueTimer = undefined;
    }
    if (!next || this.#dueTimer) return;
    const handle = this.#clock.setTimeout(
      () => {
        this.#dueTimer = undefined;
        this.#addDue();
      },
      timerDelay(next.priority - this.#clock.now()),
    );
    this.#dueTimer = { at: next.priority, handle };
  }
}
