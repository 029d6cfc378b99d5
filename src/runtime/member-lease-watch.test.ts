import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { WatchEvent } from '../kube/watch.ts';
import type { Lease, MemberLeaseApi } from './lease-api.ts';
import { LeaseSightings, watchMemberLeases } from './member-lease-watch.ts';

describe('LeaseSightings', () => {
  it.each<[string, Array<[string, string, number]>, [string, string, number], number]>([
    ['a version never seen: now', [], ['a', '1', 100], 100],
    ['a version seen before: its first sight', [['a', '1', 100]], ['a', '1', 900], 100],
    ['a newer version: now', [['a', '1', 100]], ['a', '2', 900], 900],
    [
      'a listing served before the watched write shows the older version: still its first sight',
      [
        ['a', '1', 100],
        ['a', '2', 900],
      ],
      ['a', '1', 950],
      100,
    ],
    [
      'two versions are kept: the oldest of three is seen anew',
      [
        ['a', '1', 100],
        ['a', '2', 200],
        ['a', '3', 300],
      ],
      ['a', '1', 950],
      950,
    ],
    ['Leases apart: one version each', [['b', '1', 100]], ['a', '1', 500], 500],
  ])('%s', (_name, before, [lease, rv, at], expected) => {
    const sightings = new LeaseSightings();
    for (const [l, v, t] of before) sightings.sight(l, v, t);
    expect(sightings.sight(lease, rv, at)).toBe(expected);
  });

  it('forgets the Leases a listing no longer shows', () => {
    const sightings = new LeaseSightings();
    sightings.sight('a', '1', 100);
    sightings.sight('b', '1', 100);
    sightings.keepOnly(new Set(['b']));
    expect(sightings.sight('a', '1', 500)).toBe(500);
    expect(sightings.sight('b', '1', 500)).toBe(100);
  });
});

const lease = (name: string, resourceVersion: string): Record<string, unknown> => ({
  metadata: { name, resourceVersion },
  spec: { holderIdentity: name },
});

/** A Lease API whose successive watches play the scripts given, then stay open until stopped. */
function scriptedWatches(scripts: Array<(onEvent: (e: WatchEvent) => void) => void>): {
  api: MemberLeaseApi;
  opened: () => number;
} {
  let opened = 0;
  const api = {
    watchNamespacedLease: async ({ signal }: { signal: AbortSignal }, onEvent: (e: WatchEvent) => void) => {
      const script = scripts[opened++];
      if (script) return script(onEvent);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    },
  } as unknown as MemberLeaseApi;
  return { api, opened: () => opened };
}

describe('watchMemberLeases', () => {
  it('records each version as it is watched, tells every change, and watches again after an end or a failure', async () => {
    let clock = 0;
    const sightings = new LeaseSightings();
    const told: string[] = [];
    const stop = new AbortController();
    const { api, opened } = scriptedWatches([
      (onEvent) => {
        clock = 10;
        onEvent({ type: 'ADDED', object: lease('a', '1') });
        onEvent({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '5' } } });
        clock = 20;
        onEvent({ type: 'MODIFIED', object: lease('a', '2') });
        // The server ends the watch at once: a fault, retried after a backoff.
      },
      () => {
        throw new Error('connection reset');
      },
      (onEvent) => {
        clock = 30;
        onEvent({ type: 'ADDED', object: lease('a', '2') });
        onEvent({ type: 'DELETED', object: lease('a', '2') });
        onEvent({ type: 'ERROR', object: { code: 410 } });
      },
    ]);
    const done = watchMemberLeases({
      api,
      namespace: 'ns',
      labelSelector: 'g=1',
      sightings,
      now: () => clock,
      onEvent: (type, l: Lease) => told.push(`${type} ${l.metadata?.name}@${l.metadata?.resourceVersion}`),
      signal: stop.signal,
      logger: pino({ level: 'silent' }),
      initialBackoffMs: 1,
    });
    while (opened() < 4) await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    await done;
    expect(told).toEqual(['ADDED a@1', 'MODIFIED a@2', 'ADDED a@2', 'DELETED a@2']);
    // Version 2 was first seen at 20: watched again at 30, it keeps that sight.
    expect(sightings.sight('a', '2', 99)).toBe(20);
    expect(sightings.sight('a', '1', 99)).toBe(10);
  });
});
