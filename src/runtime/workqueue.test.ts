import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkQueue } from './workqueue.ts';

/** Starts a get() and records what it resolved to, so a test can check it without blocking. */
function track(queue: WorkQueue): { value: string | undefined; settled: boolean } {
  const state = { value: undefined as string | undefined, settled: false };
  void queue.get().then((value) => {
    state.value = value;
    state.settled = true;
  });
  return state;
}

const flush = () => vi.advanceTimersByTimeAsync(0);

describe('WorkQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    { adds: ['a', 'a', 'b', 'a'], expected: ['a', 'b'] },
    { adds: ['b', 'a', 'b'], expected: ['b', 'a'] },
    { adds: [], expected: [] },
  ])('deduplicates waiting keys: $adds', async ({ adds, expected }) => {
    const queue = new WorkQueue();
    for (const key of adds) queue.add(key);
    expect(queue.len()).toBe(expected.length);
    const got: Array<string | undefined> = [];
    for (let i = 0; i < expected.length; i++) got.push(await queue.get());
    expect(got).toEqual(expected);
  });

  it("takes only the keys it admits (a replica's share), delayed ones too", async () => {
    const queue = new WorkQueue({ admit: (key) => key.startsWith('mine/') });
    queue.add('mine/a');
    queue.add('theirs/b');
    queue.addAfter('theirs/c', 10);
    await vi.advanceTimersByTimeAsync(20);
    expect(queue.len()).toBe(1);
    expect(await queue.get()).toBe('mine/a');
  });

  it('counts the keys it holds: waiting, in flight and delayed', async () => {
    const queue = new WorkQueue();
    queue.add('waiting');
    queue.add('in-flight');
    queue.addAfter('delayed', 60_000);
    expect(queue.held()).toBe(3);
    expect(await queue.get()).toBe('waiting');
    expect(queue.held()).toBe(3);
    queue.done('waiting');
    expect(queue.held()).toBe(2);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(queue.held()).toBe(2);
  });

  it('keeps a key added while in flight until done, and hands it out once', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    expect(await queue.get()).toBe('a');
    const second = track(queue);
    queue.add('a');
    queue.add('a');
    await flush();
    expect(second.settled).toBe(false);
    expect(queue.len()).toBe(0);
    queue.done('a');
    await flush();
    expect(second.value).toBe('a');
    queue.done('a');
    expect(queue.len()).toBe(0);
  });

  it('does not hand out a key done without being re-added', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    expect(await queue.get()).toBe('a');
    queue.done('a');
    const next = track(queue);
    await flush();
    expect(next.settled).toBe(false);
  });

  it.each([
    { first: 1000, second: 500, readyAt: 500 },
    { first: 500, second: 1000, readyAt: 500 },
    { first: 800, second: 800, readyAt: 800 },
  ])('addAfter keeps the earliest time ($first then $second)', async ({ first, second, readyAt }) => {
    const queue = new WorkQueue();
    queue.addAfter('a', first);
    queue.addAfter('a', second);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(readyAt - 1);
    expect(queue.len()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(queue.len()).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it.each([
    { failures: 1, delay: 1000 },
    { failures: 2, delay: 2000 },
    { failures: 4, delay: 8000 },
    { failures: 9, delay: 256_000 },
    { failures: 10, delay: 300_000 },
    { failures: 20, delay: 300_000 },
  ])('backs off exponentially: failure $failures waits $delay ms', async ({ failures, delay }) => {
    const queue = new WorkQueue();
    for (let i = 1; i < failures; i++) {
      queue.addRateLimited('a');
      await vi.runAllTimersAsync();
      expect(await queue.get()).toBe('a');
      queue.done('a');
    }
    queue.addRateLimited('a');
    expect(queue.numRequeues('a')).toBe(failures);
    await vi.advanceTimersByTimeAsync(delay - 1);
    expect(queue.len()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(queue.len()).toBe(1);
  });

  it.each([
    { asked: 5000, delay: 5000 },
    { asked: 10, delay: 1000 },
  ])('waits for the longer of backoff and a requested pause ($asked ms)', async ({ asked, delay }) => {
    const queue = new WorkQueue();
    queue.addRateLimited('a', asked);
    await vi.advanceTimersByTimeAsync(delay - 1);
    expect(queue.len()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(queue.len()).toBe(1);
  });

  it('forget resets the backoff', async () => {
    const queue = new WorkQueue({ baseDelayMs: 100, maxDelayMs: 1000 });
    queue.addRateLimited('a');
    queue.addRateLimited('a');
    expect(queue.numRequeues('a')).toBe(2);
    queue.forget('a');
    expect(queue.numRequeues('a')).toBe(0);
    await vi.runAllTimersAsync();
    expect(await queue.get()).toBe('a');
    queue.done('a');
    queue.addRateLimited('a');
    await vi.advanceTimersByTimeAsync(100);
    expect(queue.len()).toBe(1);
  });

  it('paces hand-outs with the global token bucket', async () => {
    const queue = new WorkQueue({ qps: 2, burst: 1 });
    for (const key of ['a', 'b', 'c']) queue.add(key);
    const gets = [track(queue), track(queue), track(queue)];
    await flush();
    expect(gets.map((g) => g.settled)).toEqual([true, false, false]);
    await vi.advanceTimersByTimeAsync(499);
    expect(gets.map((g) => g.settled)).toEqual([true, false, false]);
    await vi.advanceTimersByTimeAsync(1);
    expect(gets.map((g) => g.settled)).toEqual([true, true, false]);
    await vi.advanceTimersByTimeAsync(500);
    expect(gets.map((g) => g.value)).toEqual(['a', 'b', 'c']);
  });

  it('lets a burst through at once', async () => {
    const queue = new WorkQueue({ qps: 1, burst: 3 });
    for (const key of ['a', 'b', 'c', 'd']) queue.add(key);
    const gets = [track(queue), track(queue), track(queue), track(queue)];
    await flush();
    expect(gets.map((g) => g.settled)).toEqual([true, true, true, false]);
  });

  describe('addUnpaced: hand-outs that take no token of the pace', () => {
    // One token (burst 1, refilled once a second). Each row adds keys in order ('u:' addUnpaced,
    // 'p:' add; 'p:' of a key already added is a second add of it) and lists the keys handed out at
    // once, before any refill: every unpaced key goes without a token, the paced ones share the one.
    it.each([
      { adds: ['u:a', 'u:b', 'u:c'], now: ['a', 'b', 'c'] },
      { adds: ['p:x', 'u:a', 'u:b', 'p:y'], now: ['x', 'a', 'b'] },
      // Behind a paced key with no token left, an unpaced one waits its turn (changed objects first).
      { adds: ['p:x', 'p:y', 'u:a'], now: ['x'] },
      // Asked for again by an ordinary add before its hand-out: paced after all (it may write now).
      { adds: ['u:a', 'p:a', 'p:x'], now: ['a'] },
      { adds: ['p:x', 'u:a', 'p:a'], now: ['x'] },
      // Already waiting as an ordinary key: addUnpaced does not make it free.
      { adds: ['p:x', 'p:a', 'u:a'], now: ['x'] },
    ])('$adds -> $now at once', async ({ adds, now }) => {
      const queue = new WorkQueue({ qps: 1, burst: 1 });
      for (const add of adds) {
        const key = add.slice(2);
        if (add.startsWith('u:')) queue.addUnpaced(key);
        else queue.add(key);
      }
      const gets = Array.from({ length: 4 }, () => track(queue));
      await flush();
      expect(gets.filter((g) => g.settled).map((g) => g.value)).toEqual(now);
    });

    it('paces the pass after one in flight: a key added while it runs takes a token', async () => {
      const queue = new WorkQueue({ qps: 1, burst: 1 });
      queue.add('x'); // the one token
      expect(await queue.get()).toBe('x');
      queue.addUnpaced('a');
      const first = track(queue);
      await flush(); // handed out on the next turn of the event loop
      expect(first.value).toBe('a');
      queue.addUnpaced('a');
      queue.done('a');
      const again = track(queue);
      await flush();
      expect(again.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1000);
      expect(again.value).toBe('a');
    });

    it('leaves no mark on a key it did not take: added later, it is paced', async () => {
      let mine = false;
      const queue = new WorkQueue({ qps: 1, burst: 1, admit: () => mine });
      queue.addUnpaced('a'); // another replica's yet
      expect(queue.len()).toBe(0);
      mine = true;
      queue.add('x'); // the one token
      queue.add('a');
      const gets = [track(queue), track(queue)];
      await flush();
      expect(gets.map((g) => g.value)).toEqual(['x', undefined]);
      await vi.advanceTimersByTimeAsync(1000);
      expect(gets.map((g) => g.value)).toEqual(['x', 'a']);
    });
  });

  it('shutdown resolves waiting and later getters with undefined and drops delayed keys', async () => {
    const queue = new WorkQueue();
    const waiting = track(queue);
    queue.addAfter('a', 1000);
    queue.shutdown();
    await flush();
    expect(waiting).toEqual({ value: undefined, settled: true });
    expect(await queue.get()).toBeUndefined();
    queue.add('b');
    expect(queue.len()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  describe('keys that continue work go first', () => {
    /** Hands out every waiting key, in order. */
    const drain = async (queue: WorkQueue) => {
      const order: string[] = [];
      while (queue.len() > 0) {
        const key = await queue.get();
        if (key === undefined) break;
        order.push(key);
        queue.done(key);
      }
      return order;
    };

    it.each<[string, (q: WorkQueue) => void, string[]]>([
      [
        'ahead of keys not started, in the order they came among themselves',
        (q) => {
          for (const key of ['new-1', 'new-2']) q.add(key);
          q.add('cont-1', { first: true });
          q.add('new-3');
          q.add('cont-2', { first: true });
        },
        ['cont-1', 'cont-2', 'new-1', 'new-2', 'new-3'],
      ],
      [
        'a waiting key added again as continuing moves up',
        (q) => {
          for (const key of ['a', 'b', 'c']) q.add(key);
          q.add('c', { first: true });
        },
        ['c', 'a', 'b'],
      ],
      [
        'a continuing key added again plainly keeps its place',
        (q) => {
          q.add('a');
          q.add('b', { first: true });
          q.add('b');
        },
        ['b', 'a'],
      ],
    ])('%s', async (_name, adds, expected) => {
      const queue = new WorkQueue({ qps: 1e9, burst: 1e9 });
      adds(queue);
      expect(await drain(queue)).toEqual(expected);
    });

    it('a delayed continuing key, when due, goes ahead of the keys that waited meanwhile', async () => {
      const queue = new WorkQueue({ qps: 1e9, burst: 1e9 });
      queue.addAfter('following', 400, { first: true });
      queue.addAfter('resync', 300);
      for (const key of ['new-1', 'new-2']) queue.add(key);
      await vi.advanceTimersByTimeAsync(500);
      expect(await drain(queue)).toEqual(['following', 'new-1', 'new-2', 'resync']);
    });

    it('a key made continuing while in flight goes first once done', async () => {
      const queue = new WorkQueue({ qps: 1e9, burst: 1e9 });
      queue.add('busy');
      expect(await queue.get()).toBe('busy');
      queue.add('other');
      queue.add('busy', { first: true });
      queue.done('busy');
      expect(await drain(queue)).toEqual(['busy', 'other']);
    });
  });

  describe('per-tenant fairness', () => {
    const tenantOf = (key: string) =>
      key.startsWith('h') ? 'hostile' : key.startsWith('g') ? 'good' : undefined;

    it('a lone tenant uses every worker; a tenant below its share goes first once one frees', async () => {
      const queue = new WorkQueue({ tenantOf, maxPerTenant: 2 });
      for (const key of ['h1', 'h2', 'h3', 'h4', 'h5', 'h6']) queue.add(key);
      const workers = [track(queue), track(queue), track(queue), track(queue)];
      await flush();
      // Nobody else waits: past its share, the tenant takes the idle workers rather than leave them idle.
      expect(workers.map((w) => w.value)).toEqual(['h1', 'h2', 'h3', 'h4']);
      expect(queue.inFlightFor('hostile')).toBe(4);
      // Another tenant's key waits for the first worker that frees, and takes it ahead of h5 and h6.
      queue.add('g1');
      await flush();
      expect(queue.len()).toBe(3);
      queue.done('h1');
      const next = track(queue);
      await flush();
      expect(next.value).toBe('g1');
      // With g1 done and nothing else of another tenant waiting, the hostile keys go on.
      queue.done('g1');
      const after = track(queue);
      await flush();
      expect(after.value).toBe('h5');
    });

    it('a tenant holding its share does not go ahead of one below it, whatever the order they queued in', async () => {
      const queue = new WorkQueue({ tenantOf, maxPerTenant: 2 });
      for (const key of ['h1', 'h2', 'h3', 'g1', 'g2']) queue.add(key);
      const workers = [track(queue), track(queue), track(queue), track(queue)];
      await flush();
      // h1, h2 (within the share), then g1 and g2 ahead of h3, queued before them.
      expect(workers.map((w) => w.value)).toEqual(['h1', 'h2', 'g1', 'g2']);
      expect(queue.len()).toBe(1);
    });

    it('asks for the tenant of a key once as it joins the queue, not on every hand-out decision', async () => {
      // At N = 2000 asking on every decision (each scanning the queue) made the queue quadratic.
      let asked = 0;
      const counting = (key: string) => {
        asked += 1;
        return tenantOf(key);
      };
      const queue = new WorkQueue({ tenantOf: counting, maxPerTenant: 1, qps: 1e9, burst: 1e9 });
      const busy = [track(queue), track(queue)];
      for (let i = 0; i < 1_000; i++) queue.add(`h${i}`);
      await flush();
      // Both workers take a key; the tenant is then past its share, alone in the queue.
      expect(busy.map((w) => w.value)).toEqual(['h0', 'h1']);
      for (let i = 0; i < 50; i++) {
        queue.done(`h${i}`);
        track(queue);
        await flush();
      }
      // 1000 joins and 52 hand-outs: the keys waiting are not asked again on each decision.
      expect(asked).toBeLessThanOrEqual(1_000 + 52);
    });

    it('bulkheads: past the shared slots, a reserve worker takes only a tenant with nothing in flight, and a namespace holds at most its share of them', async () => {
      // A tenant per credential identity (the part after '/' up to '-'); namespaces before '/'.
      const identity = (key: string) => key.slice(key.indexOf('/') + 1).split('-')[0];
      const queue = new WorkQueue({ tenantOf: identity, maxPerTenant: 2, sharedSlots: 4 });
      // One namespace with eight credentials, three namespaces on broken servers: all their calls hang.
      for (let i = 1; i <= 8; i++) queue.add(`evil/t${i}-1`);
      for (const ns of ['b1', 'b2', 'b3']) {
        queue.add(`${ns}/${ns}-1`);
        queue.add(`${ns}/${ns}-2`);
      }
      const workers = Array.from({ length: 8 }, () => track(queue));
      await flush();
      // Evil's eight credentials are one namespace: it holds two shared slots, b1 the other two; a reserve
      // worker then takes only a tenant with nothing in flight (b2, b3), never evil's again.
      expect(workers.map((w) => w.value)).toEqual([
        'evil/t1-1',
        'evil/t2-1',
        'b1/b1-1',
        'b1/b1-2',
        'b2/b2-1',
        'b3/b3-1',
        undefined,
        undefined,
      ]);
      // A healthy tenant arriving while every shared worker hangs starts at once, on a reserve worker.
      queue.add('good/g-1');
      await flush();
      expect(workers[6]?.value).toBe('good/g-1');
      // The reserve is one key per tenant: its second key waits for a shared slot.
      queue.add('good/g-2');
      await flush();
      expect(workers[7]?.value).toBeUndefined();
      expect(queue.inFlightFor('g')).toBe(1);
    });

    it('keys with no tenant are never held, and a tenant with nothing in flight is forgotten', async () => {
      const queue = new WorkQueue({ tenantOf, maxPerTenant: 1 });
      queue.add('h1');
      queue.add('x1');
      expect(await queue.get()).toBe('h1');
      queue.add('h2');
      expect(await queue.get()).toBe('x1');
      queue.done('h1');
      expect(await queue.get()).toBe('h2');
      queue.done('h2');
      expect(queue.inFlightFor('hostile')).toBe(0);
    });
  });

  it('a delay beyond the timer limit waits (capped), it does not fire at once', async () => {
    const queue = new WorkQueue();
    queue.addAfter('a', 30 * 86_400_000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(queue.len()).toBe(0);
  });
});
