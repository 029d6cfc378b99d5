import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import type { ReconcileContext } from '../../../runtime/controller.ts';
import { objectKey } from '../../../runtime/keys.ts';
import { CachedShare, LIST_FROM_KEYS } from './cached-share.ts';
import {
  type CachedAgentDeployment,
  fullObject,
  isProjection,
  projectAgentDeployment,
} from './projection.ts';

const obj = (name: string, resourceVersion: string, image = 'agent:1'): AgentDeployment =>
  ({
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name, namespace: 'ns', resourceVersion, uid: `uid-${name}` },
    spec: { source: 'external_image', sourceRevisionConfig: { imageUri: image } },
  }) as unknown as AgentDeployment;

const ctx = (): ReconcileContext => {
  const signal = new AbortController().signal;
  return { signal, deadline: signal, log: pino({ level: 'silent' }) };
};

/** A listing of one page, answered once `objects` resolves. */
async function* pageOf(objects: AgentDeployment[] | Promise<AgentDeployment[]>) {
  yield await objects;
}

/**
 * The informer's cache as the controller wires it: its transform keeps an object in the form the share
 * says, and recache swaps an entry only while it is still the one the caller saw.
 */
function world(assigned: Set<string>, standingBy = new Set<string>()) {
  const stored = new Map<string, AgentDeployment>();
  const read = vi.fn(async (_namespace: string, name: string) => stored.get(name));
  const list = vi.fn((_namespace: string) => pageOf([...stored.values()]));
  const share = new CachedShare({
    assigned: (key) => assigned.has(key),
    standsBy: (key) => standingBy.has(key),
    read,
    list,
  });
  const cache = new Map<string, CachedAgentDeployment>();
  const transform = (o: AgentDeployment): CachedAgentDeployment => {
    const form = share.formOf(objectKey(o));
    return form === 'full' ? o : projectAgentDeployment(o);
  };
  /** A watch event: the API server's object, through the transform. */
  const event = (o: AgentDeployment) => {
    stored.set(o.metadata.name, o);
    cache.set(objectKey(o), transform(o));
  };
  share.attach({
    get: (namespace, name) => cache.get(`${namespace}/${name}`),
    recache: (expected, o) => {
      const key = objectKey(expected);
      if (cache.get(key) !== expected) return false;
      cache.set(key, transform(o));
      return true;
    },
  });
  const entry = (name: string) => cache.get(`ns/${name}`);
  /** A watch event of a deletion. */
  const remove = (name: string) => {
    stored.delete(name);
    cache.delete(`ns/${name}`);
  };
  return { share, read, list, event, entry, remove, stored };
}

describe('CachedShare: a pass never runs on a projection', () => {
  it('reads a projected object in full before the pass, and keeps it in full while assigned', async () => {
    const assigned = new Set<string>();
    const w = world(assigned);
    w.event(obj('a', '5'));
    expect(isProjection(w.entry('a') as CachedAgentDeployment)).toBe(true);

    assigned.add('ns/a'); // gained
    const seen: (AgentDeployment | undefined)[] = [];
    const pass = w.share.reconciler(async () => {
      seen.push(fullObject(w.entry('a')));
      return {};
    });
    await pass('ns/a', ctx());
    expect(w.read).toHaveBeenCalledTimes(1);
    expect(seen[0]?.spec.sourceRevisionConfig).toEqual({ imageUri: 'agent:1' });
    expect(isProjection(w.entry('a') as CachedAgentDeployment)).toBe(false);

    // Already in full: no read.
    await pass('ns/a', ctx());
    expect(w.read).toHaveBeenCalledTimes(1);
  });

  it('does not put its read over a newer watch event that came meanwhile', async () => {
    const assigned = new Set<string>();
    const w = world(assigned);
    w.event(obj('a', '5', 'agent:old'));
    assigned.add('ns/a');
    // The GET answers with version 5 only after the watch delivered version 6.
    w.read.mockImplementationOnce(async () => {
      w.event(obj('a', '6', 'agent:new'));
      return obj('a', '5', 'agent:old');
    });
    let seen: AgentDeployment | undefined;
    await w.share.reconciler(async () => {
      seen = fullObject(w.entry('a'));
      return {};
    })('ns/a', ctx());
    expect(seen?.metadata.resourceVersion).toBe('6');
    expect(seen?.spec.sourceRevisionConfig).toEqual({ imageUri: 'agent:new' });
  });

  it('a watch event that comes while the pass runs is kept in full, even once the key is lost', async () => {
    const assigned = new Set<string>();
    const w = world(assigned);
    w.event(obj('a', '5'));
    assigned.add('ns/a');
    w.read.mockImplementationOnce(async () => {
      assigned.delete('ns/a'); // lost while its pass runs: the handover waits for the pass
      w.event(obj('a', '6', 'agent:6'));
      return obj('a', '5');
    });
    let seen: AgentDeployment | undefined;
    await w.share.reconciler(async () => {
      seen = fullObject(w.entry('a'));
      return {};
    })('ns/a', ctx());
    expect(seen?.metadata.resourceVersion).toBe('6');
    // The pass over, the lost key is a projection again.
    expect(isProjection(w.entry('a') as CachedAgentDeployment)).toBe(true);
  });

  it('an object gone from the API server: the pass runs and finds no object (the watch deletes it)', async () => {
    const assigned = new Set<string>();
    const w = world(assigned);
    w.event(obj('a', '5'));
    w.stored.delete('a');
    assigned.add('ns/a');
    let seen: AgentDeployment | undefined = obj('x', '1');
    await w.share.reconciler(async () => {
      seen = fullObject(w.entry('a'));
      return {};
    })('ns/a', ctx());
    expect(seen).toBeUndefined();
  });
});

describe('CachedShare: keys lost', () => {
  it('are projected at once, except while a pass of theirs runs: then when it ends', async () => {
    const assigned = new Set(['ns/a', 'ns/b']);
    const w = world(assigned);
    w.event(obj('a', '1'));
    w.event(obj('b', '1'));
    const inPass = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    let seenDuring: AgentDeployment | undefined;
    const running = w.share.reconciler(async () => {
      inPass.resolve();
      await release.promise;
      // A watch event during the pass, after the key was lost: still kept in full (the pass reads it).
      w.event(obj('b', '2', 'agent:2'));
      seenDuring = fullObject(w.entry('b'));
      return {};
    })('ns/b', ctx());
    await inPass.promise;

    assigned.clear();
    w.share.conform(['ns/a', 'ns/b']);
    expect(isProjection(w.entry('a') as CachedAgentDeployment)).toBe(true);
    expect(isProjection(w.entry('b') as CachedAgentDeployment)).toBe(false);

    release.resolve();
    await running;
    expect(seenDuring?.metadata.resourceVersion).toBe('2');
    expect(isProjection(w.entry('b') as CachedAgentDeployment)).toBe(true);
    expect(w.entry('b')?.metadata.resourceVersion).toBe('2');
  });

  it('an assigned key is never projected, a projection is left as it is', () => {
    const assigned = new Set(['ns/a']);
    const w = world(assigned);
    w.event(obj('a', '1'));
    w.event(obj('b', '1'));
    const before = w.entry('b');
    w.share.conform(['ns/a', 'ns/b']);
    expect(isProjection(w.entry('a') as CachedAgentDeployment)).toBe(false);
    expect(w.entry('b')).toBe(before);
  });
});

describe('CachedShare.readInFull: a takeover lists its namespaces instead of a GET per object', () => {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `o${i}`);

  it.each([
    ['fewer keys than a listing is worth: each pass reads its own', LIST_FROM_KEYS - 1, 0],
    ['as many as LIST_FROM_KEYS: one listing, no GET', LIST_FROM_KEYS, 1],
  ])('%s', async (_name, gained, listings) => {
    const assigned = new Set<string>();
    const w = world(assigned);
    for (const name of names(gained)) w.event(obj(name, '1'));
    for (const name of names(gained)) assigned.add(`ns/${name}`);
    await w.share.readInFull(names(gained).map((name) => `ns/${name}`));
    expect(w.list).toHaveBeenCalledTimes(listings);
    const pass = w.share.reconciler(async () => ({}));
    for (const name of names(gained)) await pass(`ns/${name}`, ctx());
    expect(w.read).toHaveBeenCalledTimes(listings === 1 ? 0 : gained);
  });

  it('keeps a projection whose resourceVersion the listing does not show (its pass reads it)', async () => {
    const assigned = new Set<string>();
    const w = world(assigned);
    for (const name of names(LIST_FROM_KEYS)) w.event(obj(name, '1'));
    // The listing answers an older version of o0 than the watch delivered.
    w.list.mockImplementationOnce(() =>
      pageOf([obj('o0', '0'), ...[...w.stored.values()].filter((o) => o.metadata.name !== 'o0')]),
    );
    for (const name of names(LIST_FROM_KEYS)) assigned.add(`ns/${name}`);
    await w.share.readInFull(names(LIST_FROM_KEYS).map((name) => `ns/${name}`));
    expect(isProjection(w.entry('o0') as CachedAgentDeployment)).toBe(true);
    expect(isProjection(w.entry('o1') as CachedAgentDeployment)).toBe(false);
  });

  it('lists nothing for keys already held in full (a replica that starts)', async () => {
    const assigned = new Set(names(LIST_FROM_KEYS).map((name) => `ns/${name}`));
    const w = world(assigned);
    for (const name of names(LIST_FROM_KEYS)) w.event(obj(name, '1'));
    await w.share.readInFull([...assigned]);
    expect(w.list).not.toHaveBeenCalled();
  });
});

describe('CachedShare: what it stands by for is kept in full, so a failover reads nothing', () => {
  const staying = new AbortController().signal;
  const keysOf = (names: string[]) => names.map((name) => `ns/${name}`);
  const names = Array.from({ length: LIST_FROM_KEYS }, (_, i) => `o${i}`);
  const formOf = (entry: CachedAgentDeployment | undefined) =>
    entry === undefined ? 'none' : isProjection(entry) ? 'projection' : 'full';

  it('keeps in full what it stands by for; the assignee gone, the takeover neither lists nor GETs, and each pass sees the object', async () => {
    const assigned = new Set<string>();
    const standingBy = new Set(keysOf(names));
    const w = world(assigned, standingBy);
    for (const name of names) w.event(obj(name, '1', `agent:${name}`));
    w.event(obj('other', '1'));
    expect(names.map((name) => formOf(w.entry(name)))).toEqual(names.map(() => 'full'));
    expect(formOf(w.entry('other'))).toBe('projection');
    // The assignee died: the keys are this replica's now.
    for (const key of standingBy) assigned.add(key);
    standingBy.clear();
    await w.share.readInFull(keysOf(names));
    expect(names.map((name) => formOf(w.entry(name)))).toEqual(names.map(() => 'full'));
    const seen: (AgentDeployment | undefined)[] = [];
    const pass = w.share.reconciler(async (key) => {
      seen.push(fullObject(w.entry(key.slice('ns/'.length))));
      return {};
    });
    for (const key of keysOf(names)) await pass(key, ctx());
    expect(w.list).not.toHaveBeenCalled();
    expect(w.read).not.toHaveBeenCalled();
    expect(seen).toEqual(names.map((name) => w.stored.get(name)));
    expect(names.map((name) => formOf(w.entry(name)))).toEqual(names.map(() => 'full'));
  });

  it.each([
    ['as many as LIST_FROM_KEYS: one listing', LIST_FROM_KEYS, 1, 0],
    ['fewer: a GET each (no pass will read them)', 3, 0, 3],
  ])(
    'reads in full what it began standing by for after its last watch event: %s',
    async (_name, n, listings, reads) => {
      const standingBy = new Set<string>();
      const w = world(new Set(), standingBy);
      const some = names.slice(0, n);
      for (const name of some) w.event(obj(name, '1'));
      w.event(obj('other', '1'));
      // The members changed: it stands by for these now, and holds them as projections alone.
      for (const key of keysOf(some)) standingBy.add(key);
      const all = [...keysOf(some), 'ns/other'];
      expect(all.filter((key) => w.share.awaitsRead(key))).toEqual(keysOf(some));
      await expect(w.share.readStandby(all, staying)).resolves.toBe(n);
      expect(w.list).toHaveBeenCalledTimes(listings);
      expect(w.read).toHaveBeenCalledTimes(reads);
      expect(some.map((name) => formOf(w.entry(name)))).toEqual(some.map(() => 'full'));
      expect(formOf(w.entry('other'))).toBe('projection');
      expect(all.filter((key) => w.share.awaitsRead(key))).toEqual([]);
    },
  );

  it('keeps from a listing of several pages only what it stands by for', async () => {
    const standingBy = new Set<string>();
    const w = world(new Set(), standingBy);
    const all = Array.from({ length: 3 * LIST_FROM_KEYS }, (_, i) => `q${i}`);
    for (const name of all) w.event(obj(name, '1'));
    const wanted = all.filter((_, i) => i % 3 === 0);
    for (const key of keysOf(wanted)) standingBy.add(key);
    w.list.mockImplementationOnce(async function* () {
      const stored = [...w.stored.values()];
      for (let at = 0; at < stored.length; at += 50) yield stored.slice(at, at + 50);
    });
    await expect(w.share.readStandby(keysOf(all), staying)).resolves.toBe(wanted.length);
    expect(all.map((name) => formOf(w.entry(name)))).toEqual(
      all.map((_, i) => (i % 3 === 0 ? 'full' : 'projection')),
    );
  });

  it('a takeover while the standby is read waits for that read instead of listing again', async () => {
    const standingBy = new Set<string>();
    const assigned = new Set<string>();
    const w = world(assigned, standingBy);
    for (const name of names) w.event(obj(name, '1'));
    const listed = Promise.withResolvers<AgentDeployment[]>();
    w.list.mockImplementationOnce(() => pageOf(listed.promise));
    // Standing by for them since the members changed, and read in full; meanwhile their assignee dies.
    for (const key of keysOf(names)) standingBy.add(key);
    const reading = w.share.readStandby(keysOf(names), staying);
    for (const key of keysOf(names)) assigned.add(key);
    const takeover = w.share.readInFull(keysOf(names));
    listed.resolve([...w.stored.values()]);
    await Promise.all([reading, takeover]);
    expect(w.list).toHaveBeenCalledTimes(1);
    expect(names.map((name) => formOf(w.entry(name)))).toEqual(names.map(() => 'full'));
  });

  it('a takeover of what it held in full does not wait for a standby listing under way (it needs nothing read)', async () => {
    const standingBy = new Set<string>();
    const assigned = new Set<string>();
    const w = world(assigned, standingBy);
    const all = Array.from({ length: LIST_FROM_KEYS + 10 }, (_, i) => `p${i}`);
    const [held, listedNow] = [all.slice(0, 10), all.slice(10)];
    for (const key of keysOf(held)) standingBy.add(key);
    for (const name of all) w.event(obj(name, '1'));
    const listed = Promise.withResolvers<AgentDeployment[]>();
    w.list.mockImplementationOnce(() => pageOf(listed.promise));
    // The members changed: it stands by for more, whose listing hangs; meanwhile the assignee of the
    // ones held in full dies.
    for (const key of keysOf(listedNow)) standingBy.add(key);
    const reading = w.share.readStandby(keysOf(all), staying);
    for (const key of keysOf(held)) {
      standingBy.delete(key);
      assigned.add(key);
    }
    await w.share.readInFull(keysOf(held));
    expect(held.map((name) => formOf(w.entry(name)))).toEqual(held.map(() => 'full'));
    listed.resolve([...w.stored.values()]);
    await reading;
    expect(w.list).toHaveBeenCalledTimes(1);
  });

  it('a takeover does not wait for the standby’s GETs (many small namespaces could make them many)', async () => {
    const standingBy = new Set<string>();
    const w = world(new Set(), standingBy);
    w.event(obj('few', '1'));
    standingBy.add('ns/few');
    const answered = Promise.withResolvers<AgentDeployment | undefined>();
    w.read.mockImplementationOnce(() => answered.promise);
    const reading = w.share.readStandby(['ns/few'], staying);
    await vi.waitFor(() => expect(w.read).toHaveBeenCalledTimes(1));
    await w.share.readInFull(['ns/few']);
    answered.resolve(w.stored.get('few'));
    await reading;
    expect(formOf(w.entry('few'))).toBe('full');
  });

  it('a standby GET that answered leaves no deadline timer behind', async () => {
    vi.useFakeTimers();
    try {
      const standingBy = new Set<string>();
      const w = world(new Set(), standingBy);
      for (const name of ['a', 'b']) w.event(obj(name, '1'));
      for (const name of ['a', 'b']) standingBy.add(`ns/${name}`);
      await w.share.readStandby(['ns/a', 'ns/b'], staying);
      expect(w.read).toHaveBeenCalledTimes(2);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('leaving stops the standby’s GETs', async () => {
    const standingBy = new Set<string>();
    const w = world(new Set(), standingBy);
    for (const name of ['a', 'b']) w.event(obj(name, '1'));
    for (const name of ['a', 'b']) standingBy.add(`ns/${name}`);
    const leaving = new AbortController();
    leaving.abort();
    await w.share.readStandby(['ns/a', 'ns/b'], leaving.signal);
    expect(w.read).not.toHaveBeenCalled();
  });

  it.each([
    ['lost, and stood by for: in full', true, true, 'full'],
    ['lost: a projection', true, false, 'projection'],
    ['no longer stood by for: a projection', false, false, 'projection'],
    ['still stood by for: in full, as it was', false, true, 'full'],
  ])('released once the members changed, a key it %s', (_name, assigned, standsBy, form) => {
    const assignedKeys = new Set(assigned ? ['ns/a'] : []);
    const standingBy = new Set(assigned ? [] : ['ns/a']);
    const w = world(assignedKeys, standingBy);
    w.event(obj('a', '1'));
    assignedKeys.clear();
    standingBy.clear();
    if (standsBy) standingBy.add('ns/a');
    w.share.conform(['ns/a']);
    expect(formOf(w.entry('a'))).toBe(form);
    expect(w.read).not.toHaveBeenCalled();
  });

  it('once the members changed, projects the objects it no longer stands by for', async () => {
    const standingBy = new Set(['ns/a', 'ns/b']);
    const w = world(new Set(), standingBy);
    for (const name of ['a', 'b']) w.event(obj(name, '1'));
    standingBy.delete('ns/a');
    await w.share.readStandby(['ns/a', 'ns/b'], staying);
    expect([formOf(w.entry('a')), formOf(w.entry('b'))]).toEqual(['projection', 'full']);
    expect(w.read).not.toHaveBeenCalled();
  });
});
