import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type LeaseApi, startLeaderElection } from './leader.ts';
import type { Lease } from './lease-api.ts';

/** An in-memory Lease store with resourceVersion checks, like the API server's. */
function fakeLeaseApi() {
  let lease: Lease | undefined;
  let version = 0;
  const state = { failing: false, writes: 0, replaceDelayMs: 0 };
  const fail = () => Promise.reject(Object.assign(new Error('connection refused'), { code: 503 }));
  const store = (body: Lease): Lease => {
    version++;
    state.writes++;
    lease = structuredClone({ ...body, metadata: { ...body.metadata, resourceVersion: String(version) } });
    return structuredClone(lease);
  };
  const api: LeaseApi = {
    readNamespacedLease: () => {
      if (state.failing) return fail();
      if (!lease) return Promise.reject(Object.assign(new Error('not found'), { code: 404 }));
      return Promise.resolve(structuredClone(lease));
    },
    createNamespacedLease: ({ body }) => {
      if (state.failing) return fail();
      if (lease) return Promise.reject(Object.assign(new Error('exists'), { code: 409 }));
      return Promise.resolve(store(body));
    },
    replaceNamespacedLease: async ({ body }) => {
      if (state.failing) return fail();
      if (body.metadata?.resourceVersion !== lease?.metadata?.resourceVersion) {
        return Promise.reject(Object.assign(new Error('conflict'), { code: 409 }));
      }
      if (state.replaceDelayMs > 0) await new Promise((r) => setTimeout(r, state.replaceDelayMs));
      return store(body);
    },
  };
  return {
    api,
    state,
    current: () => lease,
    setHolder: (holder: string) => store({ ...lease, spec: { ...lease?.spec, holderIdentity: holder } }),
  };
}

describe('startLeaderElection', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function start(api: LeaseApi, events: string[]) {
    return startLeaderElection({
      access: undefined as never,
      api,
      namespace: 'ns',
      name: 'lock',
      identity: 'me',
      logger: pino({ level: 'silent' }),
      onStartedLeading: () => events.push('started'),
      onStoppedLeading: () => events.push('stopped'),
    });
  }

  it('creates the lease, renews it, and stops leading once renewals fail past the renew deadline', async () => {
    const fake = fakeLeaseApi();
    const events: string[] = [];
    const elector = start(fake.api, events);
    await vi.advanceTimersByTimeAsync(0);
    expect(elector.isLeader()).toBe(true);
    expect(fake.current()?.spec).toMatchObject({ holderIdentity: 'me', leaseDurationSeconds: 15 });
    await vi.advanceTimersByTimeAsync(6000);
    expect(fake.state.writes).toBeGreaterThanOrEqual(3);

    fake.state.failing = true;
    await vi.advanceTimersByTimeAsync(7000);
    expect(elector.isLeader()).toBe(true);
    await vi.advanceTimersByTimeAsync(3000);
    expect(elector.isLeader()).toBe(false);
    expect(events).toEqual(['started', 'stopped']);

    fake.state.failing = false;
    await vi.advanceTimersByTimeAsync(2500);
    expect(elector.isLeader()).toBe(true);
    expect(events).toEqual(['started', 'stopped', 'started']);
    await elector.release();
  });

  it('stops leading at once when another replica holds the lease', async () => {
    const fake = fakeLeaseApi();
    const events: string[] = [];
    const elector = start(fake.api, events);
    await vi.advanceTimersByTimeAsync(0);
    fake.setHolder('other');
    await vi.advanceTimersByTimeAsync(2500);
    expect(elector.isLeader()).toBe(false);
    expect(events).toEqual(['started', 'stopped']);
    await elector.release();
    expect(fake.current()?.spec?.holderIdentity).toBe('other');
  });

  it('release empties holderIdentity and shortens the lease', async () => {
    const fake = fakeLeaseApi();
    const elector = start(fake.api, []);
    await vi.advanceTimersByTimeAsync(0);
    await elector.release();
    expect(elector.isLeader()).toBe(false);
    expect(fake.current()?.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
  });

  it('refuses a renew deadline not below the lease duration', () => {
    expect(() =>
      startLeaderElection({
        access: undefined as never,
        api: fakeLeaseApi().api,
        namespace: 'ns',
        name: 'lock',
        identity: 'me',
        leaseDurationMs: 5000,
        renewDeadlineMs: 5000,
        logger: pino({ level: 'silent' }),
        onStartedLeading: () => undefined,
        onStoppedLeading: () => undefined,
      }),
    ).toThrow(/renewDeadline/);
  });

  describe('on a monotonic clock: a step of the wall clock moves no deadline', () => {
    const HOUR = 3_600_000;

    it('a leader whose wall clock steps back during a renewal still stops at the renew deadline', async () => {
      const fake = fakeLeaseApi();
      const events: string[] = [];
      const elector = start(fake.api, events);
      await vi.advanceTimersByTimeAsync(0);
      expect(elector.isLeader()).toBe(true);
      // The next renewal takes a second, and the wall clock steps back an hour meanwhile.
      fake.state.replaceDelayMs = 1000;
      await vi.advanceTimersByTimeAsync(2500);
      vi.setSystemTime(Date.now() - HOUR);
      await vi.advanceTimersByTimeAsync(1000);
      fake.state.failing = true;
      // Renewed at ~2s (monotonic): the deadline is ~12s, not an hour later.
      await vi.advanceTimersByTimeAsync(10_000);
      expect(elector.isLeader()).toBe(false);
      expect(events).toEqual(['started', 'stopped']);
      await elector.release();
    });

    it.each([
      ['back', -HOUR],
      ['forward', HOUR],
    ])(
      'a follower takes over an abandoned lease after its duration when the wall clock steps %s',
      async (_, stepMs) => {
        const fake = fakeLeaseApi();
        fake.setHolder('other');
        const events: string[] = [];
        const elector = start(fake.api, events);
        await vi.advanceTimersByTimeAsync(0);
        expect(elector.isLeader()).toBe(false);
        vi.setSystemTime(Date.now() + stepMs);
        // Nobody renews: 15 s after it was first seen the lease is free, whatever the wall clock says.
        await vi.advanceTimersByTimeAsync(10_000);
        expect(elector.isLeader()).toBe(false);
        await vi.advanceTimersByTimeAsync(8_000);
        expect(elector.isLeader()).toBe(true);
        await elector.release();
      },
    );
  });
});
