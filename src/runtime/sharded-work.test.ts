import { describe, expect, it } from 'vitest';
import type { ShardMembership } from './shard-membership.ts';
import { ShardedWork } from './sharded-work.ts';

/** A membership whose answers the test sets: `may` (may work now) and `assigned` (its share). */
function fakeMembership(may: Set<string>, assigned: Set<string>) {
  const woken: number[] = [];
  const membership = {
    identity: 'me',
    mayWork: (key: string) => may.has(key),
    assigned: (key: string) => assigned.has(key),
    census: () => ({ assigned: 0, unassigned: 0 }),
    views: () => 0,
    standsBy: () => false,
    members: () => ['me'],
    joined: Promise.resolve(),
    wake: () => woken.push(1),
    release: async () => {},
    heldUntil: () => Number.POSITIVE_INFINITY,
  } satisfies ShardMembership;
  return { membership, woken };
}

describe('ShardedWork', () => {
  it('admits nothing and starts nothing before this replica joined', async () => {
    const work = new ShardedWork(() => undefined);
    expect(work.admits('', 'ns/a')).toBe(false);
    let ran = false;
    await work.whileAssigned('', async () => {
      ran = true;
      return {};
    })('ns/a', undefined as never);
    expect(ran).toBe(false);
  });

  it('starts a pass only while it may, counts it while it runs, and wakes the membership after', async () => {
    const { membership, woken } = fakeMembership(new Set(['ns/a']), new Set(['ns/a', 'ns/b']));
    const work = new ShardedWork(() => membership);
    const seen: string[][] = [];
    const gated = work.whileAssigned('', async (key) => {
      seen.push([key, ...work.running()]);
      return { requeueAfterMs: 1 };
    });
    expect(await gated('ns/a', undefined as never)).toEqual({ requeueAfterMs: 1 });
    // Assigned but not yet free to start (the old assignee has not let go): nothing runs, nothing is kept.
    expect(await gated('ns/b', undefined as never)).toEqual({});
    expect(seen).toEqual([['ns/a', 'ns/a']]);
    expect([...work.running()]).toEqual([]);
    expect(woken).toHaveLength(1);
  });

  it('hashes a kind with its prefix', () => {
    const { membership } = fakeMembership(
      new Set(['SandboxTemplate:ns/a']),
      new Set(['SandboxTemplate:ns/a']),
    );
    const work = new ShardedWork(() => membership);
    expect(work.admits('SandboxTemplate:', 'ns/a')).toBe(true);
    expect(work.admits('', 'ns/a')).toBe(false);
  });

  it('on a change, hands each kind the keys it gained (once) and those it lost', () => {
    const may = new Set(['ns/a']);
    const assigned = new Set(['ns/a', 'ns/b']);
    const { membership } = fakeMembership(may, assigned);
    const work = new ShardedWork(() => membership);
    const gained: string[][] = [];
    const lost: string[][] = [];
    const kind = {
      prefix: '',
      keys: () => ['ns/a', 'ns/b', 'ns/c'],
      gained: (keys: string[]) => gained.push(keys),
      lost: (keys: string[]) => lost.push(keys),
      changes: () => 0,
    };
    work.changed([kind]);
    may.add('ns/b'); // the old assignee let go
    work.changed([kind]);
    expect(gained).toEqual([['ns/a'], ['ns/b']]);
    expect(lost).toEqual([['ns/c'], ['ns/c']]);
  });

  it('gains nothing on a change that keeps what it worked on: objects created after the last change', async () => {
    const may = new Set<string>();
    const { membership } = fakeMembership(may, may);
    const work = new ShardedWork(() => membership);
    const keys: string[] = [];
    const gained: string[][] = [];
    const kind = {
      prefix: '',
      keys: () => keys,
      gained: (k: string[]) => gained.push(k),
      lost: () => {},
      changes: () => 0,
    };
    work.changed([kind]); // joined with an empty cache
    // Then objects arrive through the watch, and each has its pass here.
    const pass = work.whileAssigned('', async () => ({}));
    for (const key of ['ns/a', 'ns/b']) {
      keys.push(key);
      may.add(key);
      await pass(key, undefined as never);
    }
    // Another member joins and takes nothing of these (or takes ns/b): none of them is a takeover here.
    work.changed([kind]);
    may.delete('ns/b');
    work.changed([kind]);
    expect(gained).toEqual([]);
    expect(work.awaitingPass('')).toBe(0);
  });

  it('counts the keys gained until their first pass here ends, per kind; a key lost or gone is not awaited', async () => {
    const may = new Set(['ns/a', 'ns/b', 'ns/c']);
    const { membership } = fakeMembership(may, new Set(may));
    const work = new ShardedWork(() => membership);
    const keys = ['ns/a', 'ns/b', 'ns/c'];
    const kind = { prefix: '', keys: () => keys, gained: () => {}, lost: () => {}, changes: () => 0 };
    const templates = {
      prefix: 'SandboxTemplate:',
      keys: () => [],
      gained: () => {},
      lost: () => {},
      changes: () => 0,
    };
    work.changed([kind, templates]);
    expect([work.awaitingPass(''), work.awaitingPass('SandboxTemplate:')]).toEqual([3, 0]);
    const pass = work.whileAssigned('', async () => ({}));
    await pass('ns/a', undefined as never);
    await pass('ns/a', undefined as never);
    expect(work.awaitingPass('')).toBe(2);
    may.delete('ns/b'); // lost before its pass (another member's now)
    keys.pop(); // ns/c deleted from the cache before its pass
    work.changed([kind, templates]);
    expect(work.awaitingPass('')).toBe(0);
  });

  it('reports a takeover done once every key it gained had its pass, the gains of changes meanwhile counted in', async () => {
    const may = new Set(['ns/a', 'ns/b']);
    const { membership } = fakeMembership(may, new Set(['ns/a', 'ns/b', 'ns/c']));
    const passed: [string, number][] = [];
    const work = new ShardedWork(
      () => membership,
      (prefix, gained) => passed.push([prefix, gained]),
    );
    const kind = {
      prefix: '',
      keys: () => ['ns/a', 'ns/b', 'ns/c'],
      gained: () => {},
      lost: () => {},
      changes: () => 0,
    };
    const pass = work.whileAssigned('', async () => ({}));
    work.changed([kind]);
    await pass('ns/a', undefined as never);
    may.add('ns/c'); // its old assignee let go meanwhile
    work.changed([kind]);
    await pass('ns/b', undefined as never);
    expect(passed).toEqual([]);
    await pass('ns/c', undefined as never);
    await pass('ns/c', undefined as never);
    expect(passed).toEqual([['', 3]]);
    // A change that gains nothing reports nothing.
    work.changed([kind]);
    expect(passed).toEqual([['', 3]]);
  });
});
