import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkQueue } from './workqueue.ts';

/**
 * The hand-out rules written the plain way, as the queue once was (an array spliced at the head, the
 * continuing keys its first `continuing` entries, the fairness rules as scans of it): the oracle the
 * queue's order must match, key for key, over many random operations.
 */
class ArrayModel {
  readonly handedOut: string[] = [];
  readonly #queue: string[] = [];
  #continuing = 0;
  #waiters = 0;
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #firstWhenDone = new Set<string>();
  readonly #onReserve = new Set<string>();
  readonly #tenantInFlight = new Map<string, number>();
  readonly #namespaceInFlight = new Map<string, number>();

  readonly tenantOf: (key: string) => string | undefined;
  readonly maxPerTenant: number;
  readonly sharedSlots: number;

  constructor(tenantOf: (key: string) => string | undefined, maxPerTenant: number, sharedSlots: number) {
    this.tenantOf = tenantOf;
    this.maxPerTenant = maxPerTenant;
    this.sharedSlots = sharedSlots;
  }

  add(key: string, first: boolean): void {
    if (this.#dirty.has(key)) {
      if (first && this.#processing.has(key)) this.#firstWhenDone.add(key);
      else if (first) {
        const index = this.#queue.indexOf(key);
        if (index >= this.#continuing) {
          this.#queue.splice(index, 1);
          this.#queue.splice(this.#continuing++, 0, key);
        }
      }
      return;
    }
    this.#dirty.add(key);
    if (this.#processing.has(key)) {
      if (first) this.#firstWhenDone.add(key);
      return;
    }
    this.#enqueue(key, first);
    this.#pump();
  }

  get(): void {
    this.#waiters += 1;
    this.#pump();
  }

  done(key: string): void {
    this.#processing.delete(key);
    this.#onReserve.delete(key);
    const tenant = this.tenantOf(key);
    if (tenant !== undefined) {
      bump(this.#tenantInFlight, tenant, -1);
      bump(this.#namespaceInFlight, namespaceOf(key), -1);
    }
    const first = this.#firstWhenDone.delete(key);
    if (this.#dirty.has(key)) this.#enqueue(key, first);
    this.#pump();
  }

  inFlight(): string[] {
    return [...this.#processing];
  }

  #enqueue(key: string, first: boolean): void {
    if (first) this.#queue.splice(this.#continuing++, 0, key);
    else this.#queue.push(key);
  }

  #pump(): void {
    while (this.#waiters > 0 && this.#queue.length > 0) {
      const onReserve = this.#processing.size - this.#onReserve.size >= this.sharedSlots;
      const index = onReserve ? this.#reserveIndex() : this.#fairIndex();
      if (index < 0) return;
      const key = this.#queue.splice(index, 1)[0] as string;
      if (index < this.#continuing) this.#continuing -= 1;
      this.#dirty.delete(key);
      this.#processing.add(key);
      if (onReserve) this.#onReserve.add(key);
      const tenant = this.tenantOf(key);
      if (tenant !== undefined) {
        bump(this.#tenantInFlight, tenant, 1);
        bump(this.#namespaceInFlight, namespaceOf(key), 1);
      }
      this.#waiters -= 1;
      this.handedOut.push(key);
    }
  }

  #fairIndex(): number {
    const index = this.#queue.findIndex((key) => {
      const tenant = this.tenantOf(key);
      const ns = namespaceOf(key);
      const tenantMayGo = tenant === undefined || (this.#tenantInFlight.get(tenant) ?? 0) < this.maxPerTenant;
      return tenantMayGo && (ns === '' || (this.#namespaceInFlight.get(ns) ?? 0) < this.maxPerTenant);
    });
    return Math.max(index, 0);
  }

  #reserveIndex(): number {
    return this.#queue.findIndex((key) => {
      const tenant = this.tenantOf(key);
      if (tenant !== undefined && (this.#tenantInFlight.get(tenant) ?? 0) > 0) return false;
      return (this.#namespaceInFlight.get(namespaceOf(key)) ?? 0) < this.maxPerTenant;
    });
  }
}

const namespaceOf = (key: string) => key.slice(0, Math.max(0, key.indexOf('/')));

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/** A small deterministic generator (mulberry32), so a failing sequence can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('WorkQueue hand-out order', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  // Keys of 4 namespaces (and some of no namespace); tenants by the part of the name before '-',
  // several per namespace, one namespace per tenant elsewhere, and keys of no tenant.
  const keys = Array.from({ length: 400 }, (_, i) => {
    const ns = ['a', 'b', 'c', 'd'][i % 4];
    const tenant = ['t1', 't2', 't3', 'x'][Math.floor(i / 4) % 4];
    return i % 37 === 0 ? `${tenant}-${i}` : `${ns}/${tenant}-${i}`;
  });
  const tenantOf = (key: string) => {
    const tenant = key.slice(key.indexOf('/') + 1).split('-')[0];
    return tenant === 'x' ? undefined : `${namespaceOf(key)}:${tenant}`;
  };

  it.each([
    { name: 'no fairness', seed: 1, fair: false, maxPerTenant: 1, sharedSlots: Number.POSITIVE_INFINITY },
    {
      name: 'fairness, no reserve',
      seed: 2,
      fair: true,
      maxPerTenant: 2,
      sharedSlots: Number.POSITIVE_INFINITY,
    },
    {
      name: 'fairness and a reserve (as the operator)',
      seed: 3,
      fair: true,
      maxPerTenant: 2,
      sharedSlots: 4,
    },
    { name: 'one key per tenant, a reserve of many', seed: 4, fair: true, maxPerTenant: 1, sharedSlots: 2 },
  ])(
    'matches the plain rules key for key over many operations: $name',
    async ({ seed, fair, maxPerTenant, sharedSlots }) => {
      const next = random(seed);
      const model = new ArrayModel(fair ? tenantOf : () => undefined, maxPerTenant, sharedSlots);
      const queue = new WorkQueue({
        qps: 1e12,
        burst: 1e12,
        ...(fair ? { tenantOf, maxPerTenant, sharedSlots } : {}),
      });
      const handedOut: string[] = [];
      const workers = 8;
      let waiting = 0;
      for (let step = 0; step < 6_000; step++) {
        const roll = next();
        const key = keys[Math.floor(next() * keys.length)] as string;
        const inFlight = model.inFlight();
        if (roll < 0.45) {
          const first = next() < 0.3;
          model.add(key, first);
          queue.add(key, { first });
        } else if (roll < 0.75 && waiting + inFlight.length < workers) {
          waiting += 1;
          model.get();
          void queue.get().then((got) => {
            waiting -= 1;
            if (got !== undefined) handedOut.push(got);
          });
        } else if (inFlight.length > 0) {
          const done = inFlight[Math.floor(next() * inFlight.length)] as string;
          model.done(done);
          queue.done(done);
        }
        await Promise.resolve();
      }
      await vi.advanceTimersByTimeAsync(0);
      // Enough hand-outs to have exercised the rules, and every one in the order of the plain rules.
      expect(model.handedOut.length).toBeGreaterThan(1_000);
      expect(handedOut).toEqual(model.handedOut);
    },
  );
});
