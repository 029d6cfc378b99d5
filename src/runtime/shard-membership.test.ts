/**
 * Shard membership over an in-memory Lease store (resourceVersion checks as the API server's), with
 * short lease settings: members join, leave, hold a pass and are cut off, and at no sampled moment do
 * two members both may work on one key.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../kube/watch.ts';
import type { Lease, MemberLeaseApi } from './lease-api.ts';
import { assigneeOf } from './shard-assignment.ts';
import { nextRoundInMs, type ShardMembership, startShardMembership } from './shard-membership.ts';
import { WriteFenced, writeFence } from './write-fence.ts';

const keys = Array.from({ length: 300 }, (_, i) => `ns/object-${i}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function leaseStore() {
  const leases = new Map<string, Lease>();
  let version = 0;
  const notFound = () => Object.assign(new Error('not found'), { code: 404 });
  /** Open watches: each is told every change, a moment after it is stored (as a watch cache does). */
  const watchers = new Set<(event: WatchEvent) => void>();
  const tell = (type: 'ADDED' | 'MODIFIED' | 'DELETED', lease: Lease) => {
    const event = { type, object: structuredClone(lease) as Record<string, unknown> };
    for (const watcher of watchers) setTimeout(() => watcher(event), 1);
  };
  const store = (name: string, body: Lease) => {
    version++;
    const stored = structuredClone({
      ...body,
      metadata: { ...body.metadata, name, resourceVersion: String(version) },
    });
    tell(leases.has(name) ? 'MODIFIED' : 'ADDED', stored);
    leases.set(name, stored);
    return structuredClone(stored);
  };
  /** The API as one member reaches it; `cut` makes every call fail (a partition). */
  let writeAttempts = 0;
  const apiFor = (link: { cut: boolean; failWrites?: boolean }): MemberLeaseApi => {
    const reach = async () => {
      await sleep(1);
      if (link.cut) throw Object.assign(new Error('connection refused'), { code: 503 });
    };
    return {
      readNamespacedLease: async ({ name }) => {
        await reach();
        const lease = leases.get(name);
        if (!lease) throw notFound();
        return structuredClone(lease);
      },
      createNamespacedLease: async ({ body }) => {
        await reach();
        const name = body.metadata?.name ?? '';
        if (leases.has(name)) throw Object.assign(new Error('exists'), { code: 409 });
        return store(name, body);
      },
      replaceNamespacedLease: async ({ name, body }) => {
        await reach();
        if (link.failWrites) {
          writeAttempts++;
          throw Object.assign(new Error('etcd timeout'), { code: 500 });
        }
        if (leases.get(name)?.metadata?.resourceVersion !== body.metadata?.resourceVersion)
          throw Object.assign(new Error('conflict'), { code: 409 });
        return store(name, body);
      },
      listNamespacedLease: async () => {
        await reach();
        return { items: [...leases.values()].map((l) => structuredClone(l)) };
      },
      deleteNamespacedLease: async ({ name, resourceVersion }) => {
        await reach();
        const lease = leases.get(name);
        if (lease?.metadata?.resourceVersion !== resourceVersion) return;
        leases.delete(name);
        tell('DELETED', lease);
      },
      watchNamespacedLease: async ({ signal }, onEvent) => {
        await reach();
        for (const lease of leases.values())
          onEvent({ type: 'ADDED', object: structuredClone(lease) as unknown as Record<string, unknown> });
        // Until the member stops watching; a cut link breaks the stream at its next event.
        await new Promise<void>((resolve, reject) => {
          const watcher = (event: WatchEvent) => {
            if (!link.cut) return onEvent(event);
            watchers.delete(watcher);
            reject(Object.assign(new Error('connection reset'), { code: 503 }));
          };
          watchers.add(watcher);
          signal.addEventListener('abort', () => {
            watchers.delete(watcher);
            resolve();
          });
        });
      },
    };
  };
  return { apiFor, leases, writeAttempts: () => writeAttempts };
}

interface Member {
  m: ShardMembership;
  link: { cut: boolean; failWrites?: boolean };
  lost: boolean;
  running: Set<string>;
}

let members: Member[] = [];
afterEach(async () => {
  await Promise.all(members.map((x) => x.m.release()));
  members = [];
});

/** Test lease settings: short, so that members come and go within a test. */
const SHORT = { leaseDurationMs: 600, renewDeadlineMs: 400, retryPeriodMs: 40 };

function join(store: ReturnType<typeof leaseStore>, identity: string, timing = SHORT): Member {
  const member: Member = {
    m: undefined as never,
    link: { cut: false },
    lost: false,
    running: new Set(),
  };
  member.m = startShardMembership({
    access: undefined as never,
    api: store.apiFor(member.link),
    namespace: 'ns',
    group: 'g',
    identity,
    ...timing,
    logger: pino({ level: 'silent' }),
    running: () => member.running,
    onChange: () => {},
    onLost: () => {
      member.lost = true;
    },
  });
  members.push(member);
  return member;
}

/** Samples every few ms until `done`: fails the moment two members may work on one key. */
async function sampleExclusive(done: () => boolean, timeoutMs = 8_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    for (const key of keys) {
      const holders = members.filter((x) => x.m.mayWork(key)).map((x) => x.m.identity);
      expect(holders.length, `${key} held by ${holders.join(', ')}`).toBeLessThanOrEqual(1);
    }
    if (Date.now() > until) throw new Error('timed out');
    await sleep(3);
  }
}

const everyKeyHeldOnce = () => keys.every((k) => members.filter((x) => x.m.mayWork(k)).length === 1);

describe('shard membership', () => {
  it('shares the keys among members as they join and leave, never two on one key', async () => {
    const store = leaseStore();
    join(store, 'a');
    join(store, 'b');
    await sampleExclusive(everyKeyHeldOnce);
    join(store, 'c');
    await sampleExclusive(() => everyKeyHeldOnce() && members.every((x) => x.m.members().length === 3));
    const [a] = members.splice(0, 1);
    await a?.m.release();
    await sampleExclusive(() => everyKeyHeldOnce() && members.every((x) => x.m.members().length === 2));
    expect(store.leases.size).toBe(2);
  });

  it('hands a key over only once the pass of its old assignee ended', async () => {
    const store = leaseStore();
    const a = join(store, 'a');
    await sampleExclusive(everyKeyHeldOnce);
    const moving = keys.filter((k) => assigneeOf(k, ['a', 'b']) === 'b');
    for (const k of moving) a.running.add(k);
    const b = join(store, 'b');
    // b sees a, a sees b, and still: a's passes run, so b may not start those keys.
    await sampleExclusive(() => b.m.members().length === 2 && a.m.members().length === 2);
    await sleep(200);
    expect(moving.filter((k) => b.m.mayWork(k))).toEqual([]);
    a.running.clear();
    a.m.wake();
    await sampleExclusive(everyKeyHeldOnce);
    expect(moving.every((k) => b.m.mayWork(k))).toBe(true);
  });

  it('across a partition of the Lease API, no two members may both be writing one key (the write fence)', async () => {
    const store = leaseStore();
    const a = join(store, 'a');
    const b = join(store, 'b');
    await sampleExclusive(everyKeyHeldOnce);
    const fences = new Map(
      [a, b].map((x) => [
        x,
        writeFence({ heldUntil: () => x.m.heldUntil(), mayWork: (k) => x.m.mayWork(k), minWriteMs: 100 }),
      ]),
    );
    /** Per member, per key: until when a write it may send now could still be in flight. */
    const inFlightUntil = new Map<Member, Map<string, number>>([a, b].map((x) => [x, new Map()]));
    const ofA = keys.filter((k) => a.m.mayWork(k));
    const sample = () => {
      const now = performance.now();
      for (const [x, fence] of fences) {
        for (const key of ofA) {
          let ms: number;
          try {
            ms = fence(key);
          } catch (err) {
            if (err instanceof WriteFenced) continue;
            throw err;
          }
          // x may send a write now: every other member's writes of the key must have ended.
          for (const [y, until] of inFlightUntil)
            if (y !== x) expect(until.get(key) ?? 0, `${key}: both may write`).toBeLessThanOrEqual(now);
          // A write ends by its call deadline (30 s) or, behind the fence, when the hold could end.
          inFlightUntil.get(x)?.set(key, now + Math.min(ms, 30_000));
        }
      }
    };
    sample();
    expect([...(inFlightUntil.get(a)?.values() ?? [])].length).toBe(ofA.length);
    a.link.cut = true;
    const until = Date.now() + 8_000;
    while (!ofA.every((k) => b.m.mayWork(k))) {
      sample();
      if (Date.now() > until) throw new Error('timed out');
      await sleep(3);
    }
    sample();
    // b took them over, and writes them; a sends nothing any more.
    expect(() => fences.get(b)?.(ofA[0] as string)).not.toThrow();
    expect(() => fences.get(a)?.(ofA[0] as string)).toThrow(WriteFenced);
  });

  it('takes a partitioned member over only after it stopped itself', async () => {
    const store = leaseStore();
    const a = join(store, 'a');
    const b = join(store, 'b');
    await sampleExclusive(everyKeyHeldOnce);
    const ofA = keys.filter((k) => a.m.mayWork(k));
    a.link.cut = true;
    // The moment b may work on one of a's keys, a must have stopped already.
    let stoppedFirst: boolean | undefined;
    await sampleExclusive(() => {
      if (stoppedFirst === undefined && ofA.some((k) => b.m.mayWork(k))) stoppedFirst = a.lost;
      return ofA.every((k) => b.m.mayWork(k));
    });
    expect(stoppedFirst).toBe(true);
    expect(ofA.some((k) => a.m.mayWork(k))).toBe(false);
  });

  it('stands by for the keys it would take over were their assignee gone, and takes exactly those', async () => {
    const store = leaseStore();
    const a = join(store, 'a');
    const b = join(store, 'b');
    const c = join(store, 'c');
    await sampleExclusive(() => everyKeyHeldOnce() && members.every((x) => x.m.members().length === 3));
    // Every key has one standby, never its assignee.
    for (const key of keys) {
      const standing = members.filter((x) => x.m.standsBy(key));
      expect(standing).toHaveLength(1);
      expect(standing[0]?.m.mayWork(key)).toBe(false);
    }
    const ofC = keys.filter((k) => c.m.mayWork(k));
    const standbyOfC = new Map(ofC.map((k) => [k, a.m.standsBy(k) ? a : b]));
    c.link.cut = true;
    await sampleExclusive(() => ofC.every((k) => a.m.mayWork(k) || b.m.mayWork(k)));
    for (const [key, standby] of standbyOfC) expect(standby.m.mayWork(key)).toBe(true);
    // Two members left: each stands by for what is assigned to the other.
    for (const key of keys) expect(a.m.standsBy(key)).toBe(b.m.mayWork(key));
  });

  it('stands by for nothing alone', async () => {
    const store = leaseStore();
    const a = join(store, 'a');
    await sampleExclusive(everyKeyHeldOnce);
    expect(keys.some((k) => a.m.standsBy(k))).toBe(false);
  });

  it('runs a round when a watched Lease shows news, not at its next retry period', async () => {
    // Rounds a minute apart: within the test, only the watch can tell a member of another's coming and going.
    const slow = { leaseDurationMs: 180_000, renewDeadlineMs: 120_000, retryPeriodMs: 60_000 };
    const store = leaseStore();
    const a = join(store, 'a', slow);
    await sampleExclusive(everyKeyHeldOnce);
    join(store, 'b', slow);
    await sampleExclusive(() => everyKeyHeldOnce() && members.every((x) => x.m.members().length === 2));
    members.splice(members.indexOf(a), 1);
    await a.m.release();
    await sampleExclusive(() => everyKeyHeldOnce() && members.every((x) => x.m.members().length === 1));
  });

  it('retries a failing write of a new list once a retry period, not in a loop', async () => {
    const store = leaseStore();
    const a = join(store, 'a');
    join(store, 'b');
    await sampleExclusive(everyKeyHeldOnce);
    // a cannot write, but reads: it sees c join and tries to acknowledge the new list.
    a.link.failWrites = true;
    join(store, 'c');
    await sleep(300);
    // About one attempt per 40 ms retry period: far below a loop's hundreds.
    expect(store.writeAttempts()).toBeLessThan(30);
  });
});

describe('nextRoundInMs', () => {
  it.each([
    ['no member about to expire: a retry period', 1_000, Number.POSITIVE_INFINITY, 0, 1_000],
    ['a Lease seen expired in 300 ms: then', 1_000, 5_300, 5_000, 300],
    ['expired already (the listing started before): at once', 1_000, 4_900, 5_000, 0],
    ['expiring after the next round anyway: a retry period', 1_000, 7_000, 5_000, 1_000],
    [
      'awaiting the others’ acknowledgements: an eighth of one',
      1_000,
      Number.POSITIVE_INFINITY,
      0,
      125,
      true,
    ],
    ['awaiting them, and a Lease seen expired sooner: then', 1_000, 5_050, 5_000, 50, true],
  ])('%s', (_name, retry, expiry, now, expected, awaiting = false) => {
    expect(nextRoundInMs(retry, expiry, now, awaiting)).toBe(expected);
  });
});
