import { timerDelay } from '../lib/timer-delay.ts';
import { type Clock, systemClock } from './clock.ts';
import { DelayedKeys } from './delayed-keys.ts';
import { WaitingKeys } from './waiting-keys.ts';

export interface WorkQueueOptions {
  clock?: Clock;
  /** Per-key backoff for addRateLimited: baseDelayMs * 2^failures, capped at maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Global token bucket on handing keys out: the overall pace of work toward the control plane. */
  qps?: number;
  burst?: number;
  /** What the queue reports as it works (workqueue_* metrics); depth and in-flight ages are read instead. */
  metrics?: WorkQueueMetrics;
  /**
   * Per-tenant fairness: the tenant (e.g. the credentials) a key's reconcile calls out with. A tenant
   * with maxPerTenant keys in flight never goes ahead of a waiting tenant below its share, so a tenant
   * whose server is slow or hostile cannot keep the others from converging; when no other tenant waits
   * it may use every worker (an idle worker helps nobody).
   */
  tenantOf?: (key: string) => string | undefined;
  maxPerTenant?: number;
  /**
   * Bulkheads: once this many keys are in flight, a further worker (the controller runs some beyond this
   * number, the reserve) takes only a key whose tenant has nothing in flight and whose namespace holds
   * fewer than maxPerTenant: a tenant whose calls hang on a broken server fills the shared workers at
   * most, and a tenant arriving then still starts at once instead of waiting out a call's deadline. A
   * namespace cannot take the reserve by naming many credentials. Default: no reserve.
   */
  sharedSlots?: number;
  /**
   * Keys this queue takes (default all): with --sharding=auto, those of this replica's share; a key
   * of another replica's share is dropped as it is added, before it costs a token of the pace.
   */
  admit?: (key: string) => boolean;
}

/**
 * The events client-go's work queue counts, with the same meaning (controller-runtime exposes them as
 * workqueue_adds_total, workqueue_queue_duration_seconds, workqueue_work_duration_seconds and
 * workqueue_retries_total).
 */
export interface WorkQueueMetrics {
  /** A key that was not waiting became due for processing (adding a key already waiting counts nothing). */
  added(): void;
  /** A key was handed to a worker after waiting this long since it was added. */
  handedOut(waitMs: number): void;
  /** A worker was done with a key it held this long. */
  finished(workMs: number): void;
  /** A key was added with backoff after a failure (addRateLimited). */
  retried(): void;
}

/**
 * A level-based queue of `namespace/name` keys in the manner of controller-runtime's work queue:
 * a key waits at most once, is in flight at most once, and a key added while in flight is handed out
 * again after done().
 */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #qps: number;
  readonly #burst: number;

  /** Keys waiting to be handed out, with the tenant of each asked once as it joins (it may hash credentials). */
  readonly #waiting = new WaitingKeys();
  /** Keys added while in flight that go first when they are queued again. */
  readonly #firstWhenDone = new Set<string>();
  /** Keys that need processing: waiting, or added again while in flight. */
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  /** Keys added with a delay (addAfter), until their time comes. */
  readonly #delayed: DelayedKeys;
  readonly #failures = new Map<string, number>();
  readonly #waiters: Array<(key: string | undefined) => void> = [];
  #tokens: number;
  #lastRefill: number;
  #pumpTimer: unknown;
  #shuttingDown = false;
  /** When each waiting key was first added, and when each key in flight was handed out (for metrics). */
  readonly #addedAt = new Map<string, number>();
  readonly #handedOutAt = new Map<string, number>();
  readonly #metrics: WorkQueueMetrics | undefined;
  readonly #tenantOf: ((key: string) => string | undefined) | undefined;
  readonly #maxPerTenant: number;
  /** Keys in flight per tenant; a tenant with none has no entry. */
  readonly #tenantInFlight = new Map<string, number>();
  /** The tenant each key in flight was counted against. */
  readonly #tenantOfProcessing = new Map<string, string>();
  readonly #sharedSlots: number;
  /** Keys in flight per namespace (the part of the key before '/'), for the reserve's rule. */
  readonly #namespaceInFlight = new Map<string, number>();
  /** Keys in flight on a reserve worker: the shared slots in use are the others. */
  readonly #onReserve = new Set<string>();

  readonly #admit: ((key: string) => boolean) | undefined;
  /** Waiting keys whose hand-out takes no token of the pace (addUnpaced). */
  readonly #unpaced = new Set<string>();

  constructor(options: WorkQueueOptions = {}) {
    this.#admit = options.admit;
    this.#clock = options.clock ?? systemClock;
    this.#delayed = new DelayedKeys(this.#clock, (key, first) => this.add(key, { first }));
    this.#baseDelayMs = options.baseDelayMs ?? 1000;
    this.#maxDelayMs = options.maxDelayMs ?? 5 * 60_000;
    this.#qps = options.qps ?? 10;
    this.#burst = options.burst ?? 100;
    this.#tokens = this.#burst;
    this.#lastRefill = this.#clock.now();
    this.#metrics = options.metrics;
    this.#tenantOf = options.tenantOf;
    this.#maxPerTenant = Math.max(1, options.maxPerTenant ?? Number.POSITIVE_INFINITY);
    this.#sharedSlots = options.sharedSlots ?? Number.POSITIVE_INFINITY;
  }

  /**
   * `first`: the key continues work under way (a revision being followed): it goes ahead of keys not
   * started yet, behind others that continue. Without it, 10,000 new objects queued ahead of their own
   * follow-ups turned Ready all at the end of a convergence instead of one after another.
   */
  add(key: string, options: { first?: boolean | undefined } = {}): void {
    if (this.#shuttingDown) return;
    if (this.#admit && !this.#admit(key)) return;
    if (this.#dirty.has(key)) {
      // Asked for again for a reason of its own: its pass may write, so it takes its token after all.
      this.#unpaced.delete(key);
      if (options.first && this.#processing.has(key)) this.#firstWhenDone.add(key);
      else if (options.first) this.#waiting.putFirst(key);
      return;
    }
    this.#dirty.add(key);
    this.#addedAt.set(key, this.#clock.now());
    this.#metrics?.added();
    if (this.#processing.has(key)) {
      if (options.first) this.#firstWhenDone.add(key);
      return;
    }
    this.#enqueue(key, options.first);
    this.#pump();
  }

  #enqueue(key: string, first = false): void {
    // Without fairness every key is of one group: nothing decides but the order.
    const tenant = this.#tenantOf?.(key);
    this.#waiting.add(key, first, tenant, this.#tenantOf ? namespaceOf(key) : '');
  }

  /**
   * Adds a key whose pass is expected to call and write nothing (a takeover's object that the first
   * listing shows unchanged and whose status is settled): its hand-out takes no token of the pace, so
   * the pace is spent on work toward the control plane. It still waits behind the keys ahead of it. A
   * key already waiting or in flight, or added again before its hand-out, is paced as add() paces it.
   */
  addUnpaced(key: string): void {
    if (this.#dirty.has(key) || this.#processing.has(key)) {
      this.add(key);
      return;
    }
    this.#unpaced.add(key);
    this.add(key);
    // Not taken (another replica's, or shutting down), or handed out at once: no mark left behind.
    if (!this.#dirty.has(key)) this.#unpaced.delete(key);
  }

  /** Adds the key after ms (see add for `first`); when the key is already scheduled, the earlier time wins. */
  addAfter(key: string, delayMs: number, options: { first?: boolean | undefined } = {}): void {
    if (this.#shuttingDown) return;
    // Longer than a timer can wait would fire at once (setTimeout overflows to 1 ms).
    const ms = timerDelay(delayMs);
    if (ms <= 0) {
      this.add(key, options);
      return;
    }
    this.#delayed.schedule(key, this.#clock.now() + ms, options.first === true);
  }

  /**
   * Adds the key after its exponential backoff, and counts one more failure for it. `atLeastMs` is a
   * pause the other side asked for (Retry-After): the key waits for the longer of the two.
   */
  addRateLimited(key: string, atLeastMs = 0): void {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    this.#metrics?.retried();
    this.addAfter(key, Math.max(atLeastMs, Math.min(this.#baseDelayMs * 2 ** failures, this.#maxDelayMs)));
  }

  /** Resets the key's backoff (call after a successful reconcile). */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** Keys waiting to be handed out (not in flight, not delayed). */
  len(): number {
    return this.#waiting.size;
  }

  /**
   * Keys due for processing: waiting, or added again while in flight. client-go's queue depth counts
   * exactly these (a key added while in flight is counted until it is handed out again).
   */
  depth(): number {
    return this.#dirty.size;
  }

  /**
   * Keys the queue holds: due (waiting, or added again while in flight), in flight, or delayed. An
   * upper estimate: a key both delayed and due counts twice.
   */
  held(): number {
    return this.#dirty.size + this.#processing.size + this.#delayed.size;
  }

  /** How long each key in flight has been held by its worker, in ms. */
  inFlightAges(): number[] {
    const now = this.#clock.now();
    return [...this.#handedOutAt.values()].map((at) => now - at);
  }

  /** The next key, once one is waiting and the rate limit allows; undefined after shutdown. */
  get(): Promise<string | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      this.#pump();
    });
  }

  done(key: string): void {
    const handedOutAt = this.#handedOutAt.get(key);
    this.#handedOutAt.delete(key);
    if (handedOutAt !== undefined) this.#metrics?.finished(this.#clock.now() - handedOutAt);
    this.#processing.delete(key);
    this.#onReserve.delete(key);
    this.#releaseTenant(key);
    const first = this.#firstWhenDone.delete(key);
    if (this.#dirty.has(key) && !this.#shuttingDown) this.#enqueue(key, first);
    // A tenant below its share again may have keys waiting.
    this.#pump();
  }

  /** Keys in flight for the tenant (for tests and metrics). */
  inFlightFor(tenant: string): number {
    return this.#tenantInFlight.get(tenant) ?? 0;
  }

  /**
   * The key a free worker takes: the first whose tenant is below its share, so a tenant holding its share
   * never goes ahead of one that is not; when every waiting tenant holds its share (the common case with
   * one tenant), the oldest key, since the worker would otherwise stay idle. Work-conserving: a lone
   * tenant may use every worker, and a tenant that arrives while they are all busy takes the first one
   * that frees (at worst after a call's deadline, when the busy tenant's server hangs).
   */
  #next(): string | undefined {
    if (!this.#tenantOf) return this.#waiting.oldest();
    if (this.#sharedInUse() >= this.#sharedSlots) return this.#reserveKey();
    // A key goes ahead when its tenant and its namespace are both below their share: one namespace
    // naming eight credentials is not eight tenants. Nobody below both: the oldest (work-conserving).
    return this.#waiting.firstThatMayGo(this.#tenantMayGo, this.#namespaceMayGo) ?? this.#waiting.oldest();
  }

  readonly #tenantMayGo = (tenant: string | undefined) =>
    tenant === undefined || this.inFlightFor(tenant) < this.#maxPerTenant;
  readonly #namespaceMayGo = (ns: string) => ns === '' || this.#namespaceLoad(ns) < this.#maxPerTenant;

  #namespaceLoad(ns: string): number {
    return this.#namespaceInFlight.get(ns) ?? 0;
  }

  #sharedInUse(): number {
    return this.#processing.size - this.#onReserve.size;
  }

  /** The first key a reserve worker may take (see sharedSlots), if any. */
  #reserveKey(): string | undefined {
    return this.#waiting.firstThatMayGo(this.#tenantIdle, this.#namespaceMayTakeReserve);
  }

  readonly #tenantIdle = (tenant: string | undefined) =>
    tenant === undefined || this.inFlightFor(tenant) === 0;
  readonly #namespaceMayTakeReserve = (ns: string) => this.#namespaceLoad(ns) < this.#maxPerTenant;

  #countTenant(key: string): void {
    const tenant = this.#tenantOf?.(key);
    if (tenant === undefined) return;
    this.#tenantOfProcessing.set(key, tenant);
    this.#tenantInFlight.set(tenant, this.inFlightFor(tenant) + 1);
    bump(this.#namespaceInFlight, namespaceOf(key), 1);
  }

  #releaseTenant(key: string): void {
    const tenant = this.#tenantOfProcessing.get(key);
    if (tenant === undefined) return;
    this.#tenantOfProcessing.delete(key);
    const left = this.inFlightFor(tenant) - 1;
    if (left > 0) this.#tenantInFlight.set(tenant, left);
    else this.#tenantInFlight.delete(tenant);
    bump(this.#namespaceInFlight, namespaceOf(key), -1);
  }

  /** Stops handing out keys: pending and later get() calls resolve to undefined. */
  shutdown(): void {
    this.#shuttingDown = true;
    this.#delayed.clear();
    this.#unpaced.clear();
    this.#firstWhenDone.clear();
    if (this.#pumpTimer !== undefined) this.#clock.clearTimeout(this.#pumpTimer);
    this.#pumpTimer = undefined;
    for (const resolve of this.#waiters.splice(0)) resolve(undefined);
  }

  /** Hands waiting keys to waiting getters while tokens last; otherwise waits for the next token. */
  #pump(): void {
    while (this.#waiters.length > 0 && this.#waiting.size > 0) {
      const key = this.#next();
      if (key === undefined) return;
      const unpaced = this.#unpaced.has(key);
      if (!unpaced) {
        this.#refill();
        if (this.#tokens < 1) {
          this.#scheduleRefill();
          return;
        }
        this.#tokens -= 1;
      }
      const onReserve = this.#sharedInUse() >= this.#sharedSlots;
      this.#waiting.remove(key);
      this.#unpaced.delete(key);
      this.#dirty.delete(key);
      if (onReserve) this.#onReserve.add(key);
      this.#processing.add(key);
      this.#countTenant(key);
      const addedAt = this.#addedAt.get(key);
      this.#addedAt.delete(key);
      const now = this.#clock.now();
      this.#handedOutAt.set(key, now);
      if (addedAt !== undefined) this.#metrics?.handedOut(now - addedAt);
      const waiter = this.#waiters.shift();
      // Passes that call nothing, handed out with no token, would otherwise run back to back as one
      // chain of microtasks, and timers and I/O (a member Lease's renewal) would wait for the last.
      if (unpaced) setImmediate(() => waiter?.(key));
      else waiter?.(key);
    }
  }

  #refill(): void {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#lastRefill) * this.#qps) / 1000);
    this.#lastRefill = now;
  }

  #scheduleRefill(): void {
    if (this.#pumpTimer !== undefined) return;
    const ms = Math.ceil(((1 - this.#tokens) * 1000) / this.#qps);
    this.#pumpTimer = this.#clock.setTimeout(() => {
      this.#pumpTimer = undefined;
      this.#pump();
    }, timerDelay(ms));
  }
}

/** The namespace of a `namespace/name` key; '' (no namespace rule) for a key of another shape. */
const namespaceOf = (key: string) => key.slice(0, Math.max(0, key.indexOf('/')));

/** Adds `by` to a count; a count that reaches zero is removed, so the maps hold only what is under way. */
function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
