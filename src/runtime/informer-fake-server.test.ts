/**
 * startInformer against a scripted API server: list pages, watches that end, bookmarks, 410s, failures,
 * metadata-only requests, handlers that throw, stop, and the sync state of each namespace.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  answerJson,
  type FakeApiServer,
  type RecordedRequest,
  startFakeApiServer,
  statusBody,
} from '../kube/fake-api-server.test-support.ts';
import { type InformerOptions, type RunningInformer, startInformer } from './informer.ts';

type Obj = KubernetesObject & { data?: Record<string, string> };

const PATH = '/api/v1/configmaps';
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const METADATA_WATCH = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const silent = pino({ level: 'silent' });

const cm = (
  name: string,
  resourceVersion: string,
  namespace = 'a',
  data: Record<string, string> = {},
): Obj => ({
  metadata: { name, namespace, resourceVersion, uid: `uid-${namespace}-${name}` },
  data,
});
/** A watch event's object carries its kind, as the API server sends it. */
const ev = (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: Obj) => ({
  type,
  object: { apiVersion: 'v1', kind: 'ConfigMap', ...obj },
});
const bookmark = (resourceVersion: string) => ({
  type: 'BOOKMARK',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion } },
});
const errorEvent = (code: number, message: string, reason: string) => ({
  type: 'ERROR',
  object: statusBody(code, message, reason),
});

/** What the fake answers to one watch request. */
type WatchStep =
  /** 200, these events, then the response ends (the server's timeout) or stays open. */
  | { events: unknown[]; after: 'end' | 'hold' }
  /** A non-2xx answer. */
  | { status: number; body: unknown };

interface Snapshot {
  objects: Obj[];
  resourceVersion: string;
}

interface NamespaceScript {
  /** Successive list answers: each complete list (first page) moves on to the next, the last stays. */
  snapshots: Snapshot[];
  /** Answers every list page with this instead, while set. */
  listFails?: { status: number; body: unknown } | undefined;
  /** List pages wait for this. */
  listGate?: Promise<void> | undefined;
  /** One step per watch request, in order; once empty, `watchDefault`. */
  watches: WatchStep[];
  watchDefault: WatchStep;
}

const HOLD: WatchStep = { events: [], after: 'hold' };

/** A fake API server serving ConfigMaps in the namespaces the test scripts. */
class FakeCluster {
  readonly namespaces = new Map<string, NamespaceScript>();
  server!: FakeApiServer;
  /** The snapshot each continue token reads. */
  readonly #tokens = new Map<string, { snapshot: Snapshot; offset: number }>();
  #nextToken = 0;

  script(namespace: string, script: Partial<NamespaceScript> & { snapshots: Snapshot[] }): NamespaceScript {
    const full: NamespaceScript = { watches: [], watchDefault: HOLD, ...script };
    this.namespaces.set(namespace, full);
    return full;
  }

  /** List requests (no watch=true), of one namespace or all. */
  lists(namespace?: string): RecordedRequest[] {
    return this.server.requests.filter(
      (r) => r.query.get('watch') !== 'true' && (namespace === undefined || namespaceOf(r) === namespace),
    );
  }

  watches(namespace?: string): RecordedRequest[] {
    return this.server.requests.filter(
      (r) => r.query.get('watch') === 'true' && (namespace === undefined || namespaceOf(r) === namespace),
    );
  }

  handle(req: RecordedRequest, res: ServerResponse): void {
    const script = this.namespaces.get(namespaceOf(req) ?? '\0');
    if (req.method !== 'GET' || !script) {
      answerJson(res, 404, statusBody(404, `no such path ${req.path}`, 'NotFound'));
      return;
    }
    if (req.query.get('watch') === 'true') this.#watch(script, res);
    else void this.#list(script, req, res);
  }

  async #list(script: NamespaceScript, req: RecordedRequest, res: ServerResponse): Promise<void> {
    await script.listGate;
    if (script.listFails) return answerJson(res, script.listFails.status, script.listFails.body);
    const token = req.query.get('continue');
    let at: { snapshot: Snapshot; offset: number };
    if (token) {
      const found = this.#tokens.get(token);
      if (!found)
        return answerJson(res, 400, statusBody(400, `unknown continue token ${token}`, 'BadRequest'));
      at = found;
    } else {
      const snapshot = script.snapshots.length > 1 ? script.snapshots.shift() : script.snapshots[0];
      if (!snapshot) throw new Error('no snapshot scripted');
      at = { snapshot, offset: 0 };
    }
    const limit = Number(req.query.get('limit') ?? Number.POSITIVE_INFINITY);
    const items = at.snapshot.objects.slice(at.offset, at.offset + limit);
    const next = at.offset + items.length;
    let more: string | undefined;
    if (next < at.snapshot.objects.length) {
      more = `token-${++this.#nextToken}`;
      this.#tokens.set(more, { snapshot: at.snapshot, offset: next });
    }
    answerJson(res, 200, {
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: at.snapshot.resourceVersion, ...(more ? { continue: more } : {}) },
      items: structuredClone(items),
    });
  }

  #watch(script: NamespaceScript, res: ServerResponse): void {
    const step = script.watches.shift() ?? script.watchDefault;
    if ('status' in step) {
      answerJson(res, step.status, step.body);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    if (step.events.length > 0) res.write(step.events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    if (step.after === 'end') res.end();
    else this.#open.push(res);
  }

  readonly #open: ServerResponse[] = [];

  /** Sends these events on every watch held open now. */
  deliver(events: unknown[]): void {
    for (const res of this.#open) res.write(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }
}

function namespaceOf(req: RecordedRequest): string | undefined {
  if (req.path === PATH) return '';
  return /^\/api\/v1\/namespaces\/([^/]+)\/configmaps$/.exec(req.path)?.[1];
}

const clusters: FakeCluster[] = [];
const informers: RunningInformer<Obj>[] = [];
afterEach(async () => {
  await Promise.all(informers.splice(0).map((i) => i.stop()));
  await Promise.all(clusters.splice(0).map((c) => c.server.close()));
});

async function cluster(): Promise<FakeCluster> {
  const c = new FakeCluster();
  c.server = await startFakeApiServer((req, res) => c.handle(req, res));
  clusters.push(c);
  return c;
}

/** Handlers that record what reached them (names and resourceVersions, enough to compare). */
function recorder() {
  const id = (o: Obj) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`;
  const onAdd = vi.fn<(o: Obj) => void>();
  const onUpdate = vi.fn<(old: Obj, obj: Obj) => void>();
  const onDelete = vi.fn<(o: Obj) => void>();
  const onSettled = vi.fn<() => void>();
  return {
    handlers: { onAdd, onUpdate, onDelete, onSettled },
    added: () => onAdd.mock.calls.map(([o]) => id(o)),
    updated: () => onUpdate.mock.calls.map(([old, obj]) => `${id(old)} -> ${id(obj)}`),
    deleted: () => onDelete.mock.calls.map(([o]) => id(o)),
  };
}

function start(c: FakeCluster, more: Partial<InformerOptions<Obj>> = {}): RunningInformer<Obj> {
  const informer = startInformer<Obj>({
    access: c.server.access(),
    path: PATH,
    namespaces: ['a'],
    logger: silent,
    initialBackoffMs: 20,
    maxBackoffMs: 200,
    ...more,
  });
  informers.push(informer);
  return informer;
}

const names = (objs: Obj[]) => objs.map((o) => o.metadata?.name).sort();
const versionOf = (r: RecordedRequest | undefined) => r?.query.get('resourceVersion');

describe('informer: the first list', () => {
  it('lists 1,200 objects in 3 pages of 500 and adds every object once', async () => {
    const c = await cluster();
    const objects = Array.from({ length: 1200 }, (_, i) =>
      cm(`cm-${String(i).padStart(4, '0')}`, String(i + 1)),
    );
    c.script('a', { snapshots: [{ objects, resourceVersion: '5000' }] });
    const r = recorder();
    const informer = start(c, r.handlers);

    await expect.poll(() => c.watches('a').length).toBe(1);
    const lists = c.lists('a');
    expect(lists).toHaveLength(3);
    expect(lists.map((l) => l.path)).toEqual(Array(3).fill('/api/v1/namespaces/a/configmaps'));
    expect(lists.map((l) => l.query.get('limit'))).toEqual(['500', '500', '500']);
    expect(lists[0]?.query.has('continue')).toBe(false);
    expect(lists.slice(1).map((l) => l.query.get('continue'))).toEqual(['token-1', 'token-2']);
    // The watch starts from the list's version, after the last page.
    expect(versionOf(c.watches('a')[0])).toBe('5000');

    expect(r.handlers.onAdd).toHaveBeenCalledTimes(1200);
    expect(new Set(r.added())).toEqual(
      new Set(objects.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)),
    );
    expect(r.handlers.onUpdate).not.toHaveBeenCalled();
    expect(r.handlers.onDelete).not.toHaveBeenCalled();
    expect(informer.list('a')).toHaveLength(1200);
    expect(informer.list()).toHaveLength(1200);
    // Listed items get the kind the list answer leaves out.
    expect(informer.get('a', 'cm-1199')).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(informer.hasSynced()).toBe(true);
  });

  it('sends the label selector on every page and on the watch', async () => {
    const c = await cluster();
    const objects = Array.from({ length: 501 }, (_, i) => cm(`cm-${i}`, String(i + 1)));
    c.script('a', { snapshots: [{ objects, resourceVersion: '900' }] });
    start(c, { labelSelector: 'app=x' });
    await expect.poll(() => c.watches('a').length).toBe(1);
    expect(c.server.requests.map((r) => r.query.get('labelSelector'))).toEqual(['app=x', 'app=x', 'app=x']);
  });
});

describe('informer: watches', () => {
  it('resumes from the last version seen when the server ends a watch, without listing again', async () => {
    const c = await cluster();
    c.script('a', {
      snapshots: [{ objects: [cm('x', '90')], resourceVersion: '100' }],
      watches: [
        {
          events: [ev('ADDED', cm('y', '101')), ev('MODIFIED', cm('y', '102', 'a', { k: 'v' }))],
          after: 'end',
        },
        { events: [], after: 'end' },
        { events: [ev('DELETED', cm('x', '105'))], after: 'end' },
      ],
    });
    const r = recorder();
    const informer = start(c, r.handlers);

    await expect.poll(() => c.watches('a').length).toBe(4);
    expect(c.watches('a').map(versionOf)).toEqual(['100', '102', '102', '105']);
    // Held open now; give a wrongly scheduled relist the time to show.
    await delay(100);
    expect(c.lists('a')).toHaveLength(1);
    expect(c.watches('a')).toHaveLength(4);
    expect(r.added()).toEqual(['x@90', 'y@101']);
    expect(r.updated()).toEqual(['y@101 -> y@102']);
    expect(r.deleted()).toEqual(['x@105']);
    expect(names(informer.list('a'))).toEqual(['y']);
    expect(informer.get('a', 'y')?.data).toEqual({ k: 'v' });
  });

  it("uses a BOOKMARK's resourceVersion on the next watch, and hands bookmarks to no handler", async () => {
    const c = await cluster();
    c.script('a', {
      snapshots: [{ objects: [cm('x', '90')], resourceVersion: '100' }],
      watches: [
        { events: [bookmark('150')], after: 'end' },
        { events: [ev('ADDED', cm('y', '151')), bookmark('170')], after: 'end' },
      ],
    });
    const r = recorder();
    const informer = start(c, r.handlers);

    await expect.poll(() => c.watches('a').length).toBe(3);
    expect(c.watches('a').map(versionOf)).toEqual(['100', '150', '170']);
    expect(c.lists('a')).toHaveLength(1);
    expect(r.added()).toEqual(['x@90', 'y@151']);
    expect(r.handlers.onUpdate).not.toHaveBeenCalled();
    expect(r.handlers.onDelete).not.toHaveBeenCalled();
    expect(names(informer.list('a'))).toEqual(['x', 'y']);
  });

  it.each<{ name: string; expire: WatchStep }>([
    {
      name: 'an ERROR event with code 410',
      expire: { events: [errorEvent(410, 'too old resource version: 100 (300)', 'Expired')], after: 'hold' },
    },
    {
      name: 'an HTTP 410 answer',
      expire: { status: 410, body: statusBody(410, 'too old resource version: 100 (300)', 'Gone') },
    },
  ])('$name relists, and the differences reach the handlers', async ({ expire }) => {
    const c = await cluster();
    c.script('a', {
      snapshots: [
        { objects: [cm('same', '1'), cm('changed', '2'), cm('gone', '3')], resourceVersion: '100' },
        {
          objects: [cm('same', '1'), cm('changed', '20', 'a', { k: 'new' }), cm('new', '21')],
          resourceVersion: '300',
        },
      ],
      watches: [expire],
    });
    const r = recorder();
    const informer = start(c, r.handlers);

    await expect.poll(() => c.watches('a').length).toBe(2);
    expect(c.lists('a')).toHaveLength(2);
    expect(c.watches('a').map(versionOf)).toEqual(['100', '300']);
    expect(r.added()).toEqual(['same@1', 'changed@2', 'gone@3', 'new@21']);
    expect(r.updated()).toEqual(['changed@2 -> changed@20']);
    expect(r.handlers.onUpdate.mock.calls[0]?.[0].data).toEqual({});
    expect(r.handlers.onUpdate.mock.calls[0]?.[1].data).toEqual({ k: 'new' });
    expect(r.deleted()).toEqual(['gone@3']);
    expect(names(informer.list('a'))).toEqual(['changed', 'new', 'same']);
    // The expired watch was not left open.
    await expect.poll(() => c.server.openResponses()).toBe(1);
  });

  it.each<{ name: string; failure: WatchStep }>([
    {
      name: 'a 500 answer',
      failure: { status: 500, body: statusBody(500, 'etcd timed out', 'InternalError') },
    },
    {
      name: 'an ERROR event with code 500',
      failure: { events: [errorEvent(500, 'etcd timed out', 'InternalError')], after: 'hold' },
    },
  ])(
    '$name to the watch is retried with backoff from the same version, without a relist',
    async ({ failure }) => {
      const c = await cluster();
      c.script('a', {
        snapshots: [{ objects: [cm('x', '90')], resourceVersion: '100' }],
        watches: [failure, failure, failure],
      });
      const r = recorder();
      const informer = start(c, { ...r.handlers, initialBackoffMs: 50, maxBackoffMs: 1000 });

      await expect.poll(() => c.watches('a').length).toBe(4);
      const watches = c.watches('a');
      expect(watches.map(versionOf)).toEqual(['100', '100', '100', '100']);
      expect(c.lists('a')).toHaveLength(1);
      // Backoff: at least 50, 100, 200 ms between attempts (lower bounds only, with a little slack).
      const gaps = watches.slice(1).map((w, i) => w.at - (watches[i]?.at ?? 0));
      expect(gaps[0]).toBeGreaterThanOrEqual(45);
      expect(gaps[1]).toBeGreaterThanOrEqual(95);
      expect(gaps[2]).toBeGreaterThanOrEqual(195);
      expect(r.added()).toEqual(['x@90']);
      expect(r.handlers.onDelete).not.toHaveBeenCalled();
      expect(informer.namespaceStates()).toEqual([
        { namespace: 'a', informer: PATH, synced: true, error: undefined },
      ]);
    },
  );

  it('with no namespaces given, lists and watches the cluster-wide collection path', async () => {
    const c = await cluster();
    c.script('', { snapshots: [{ objects: [cm('x', '1', 'a'), cm('y', '2', 'b')], resourceVersion: '10' }] });
    const informer = start(c, { namespaces: [] });
    await expect.poll(() => c.watches('').length).toBe(1);
    expect(c.server.requests.map((r) => r.path)).toEqual([PATH, PATH]);
    expect(versionOf(c.watches('')[0])).toBe('10');
    expect(names(informer.list())).toEqual(['x', 'y']);
    expect(names(informer.list('b'))).toEqual(['y']);
  });
});

describe('informer: metadata only', () => {
  it.each<{ name: string; metadataOnly: boolean | undefined; list: string; watch: string }>([
    { name: 'metadataOnly: true', metadataOnly: true, list: METADATA_LIST, watch: METADATA_WATCH },
    { name: 'metadataOnly: false', metadataOnly: false, list: 'application/json', watch: 'application/json' },
    { name: 'not set', metadataOnly: undefined, list: 'application/json', watch: 'application/json' },
  ])('$name', async ({ metadataOnly, list, watch }) => {
    const c = await cluster();
    const objects = Array.from({ length: 600 }, (_, i) => cm(`cm-${i}`, String(i + 1)));
    c.script('a', {
      snapshots: [{ objects, resourceVersion: '700' }],
      watches: [{ events: [bookmark('701')], after: 'end' }],
    });
    start(c, metadataOnly === undefined ? {} : { metadataOnly });
    await expect.poll(() => c.watches('a').length).toBe(2);
    expect(c.lists('a').map((r) => r.headers.accept)).toEqual([list, list]);
    expect(c.watches('a').map((r) => r.headers.accept)).toEqual([watch, watch]);
  });
});

describe('informer: changes', () => {
  it('moves with every object put or removed (a recache too), not with a bookmark or a recache too late', async () => {
    const c = await cluster();
    c.script('a', {
      snapshots: [{ objects: [cm('x', '90')], resourceVersion: '100' }],
      watches: [
        { events: [bookmark('150')], after: 'end' },
        { events: [ev('ADDED', cm('y', '151')), ev('DELETED', cm('x', '152'))], after: 'hold' },
      ],
    });
    const informer = start(c);
    await expect.poll(() => names(informer.list('a'))).toEqual(['y']);
    // x listed, y added, x deleted; the bookmark changed nothing.
    expect(informer.changes()).toBe(3);
    const y = informer.get('a', 'y') as Obj;
    expect(informer.recache(y, y)).toBe(true);
    expect(informer.changes()).toBe(4);
    // Not the entry the cache holds: nothing put.
    expect(informer.recache({ ...y }, y)).toBe(false);
    expect(informer.changes()).toBe(4);
  });
});

describe('informer: recache (a transform that decides per object)', () => {
  it("changes an entry's form only while the cache still holds that very entry; told as an update", async () => {
    const c = await cluster();
    c.script('a', {
      snapshots: [
        { objects: [cm('x', '1', 'a', { k: 'v' }), cm('y', '2', 'a', { k: 'w' })], resourceVersion: '10' },
      ],
      watches: [{ events: [], after: 'hold' }],
    });
    // Kept in full: the names in `full`; the rest without their data (a projection).
    const full = new Set<string>();
    const r = recorder();
    const informer = start(c, {
      ...r.handlers,
      transform: (o) => (full.has(o.metadata?.name ?? '') ? o : { metadata: o.metadata }),
    });
    await expect.poll(() => informer.hasSynced()).toBe(true);
    expect(informer.get('a', 'x')?.data).toBeUndefined();

    // The caller read x in full; the cache still holds the projection it saw: replaced.
    full.add('x');
    const projected = informer.get('a', 'x') as Obj;
    expect(informer.recache(projected, cm('x', '1', 'a', { k: 'v' }))).toBe(true);
    expect(informer.get('a', 'x')?.data).toEqual({ k: 'v' });
    expect(r.updated()).toEqual(['x@1 -> x@1']);
    // A second read of the old projection comes too late: the entry is no longer that one.
    expect(informer.recache(projected, cm('x', '0', 'a', { k: 'old' }))).toBe(false);
    expect(informer.get('a', 'x')).toMatchObject({ metadata: { resourceVersion: '1' }, data: { k: 'v' } });

    // No longer kept in full: the entry itself, put through the transform again, becomes a projection.
    full.delete('x');
    const entry = informer.get('a', 'x') as Obj;
    expect(informer.recache(entry, entry)).toBe(true);
    expect(informer.get('a', 'x')?.data).toBeUndefined();
  });
});

describe('informer: the cache never goes back', () => {
  it('a watch event older than a read put in the cache is dropped; newer ones go on as ever', async () => {
    // A pass read x in full (version 20) while the watch still had 15 to deliver: were 15 put back,
    // a pass would run on the older spec, and its PATCH would send an older image.
    const c = await cluster();
    c.script('a', { snapshots: [{ objects: [cm('x', '10')], resourceVersion: '10' }] });
    const r = recorder();
    const informer = start(c, r.handlers);
    await expect.poll(() => informer.hasSynced()).toBe(true);
    await expect.poll(() => c.watches('a').length).toBe(1);
    const entry = informer.get('a', 'x') as Obj;
    expect(informer.recache(entry, cm('x', '20', 'a', { image: 'v3' }))).toBe(true);
    c.deliver([
      ev('MODIFIED', cm('x', '15', 'a', { image: 'v2' })),
      ev('MODIFIED', cm('x', '20', 'a', { image: 'v3' })),
      ev('MODIFIED', cm('x', '25', 'a', { image: 'v4' })),
      ev('DELETED', cm('x', '18', 'a', { image: 'v2' })),
    ]);
    await expect.poll(() => informer.get('a', 'x')?.metadata?.resourceVersion).toBe('25');
    expect(informer.get('a', 'x')?.data).toEqual({ image: 'v4' });
    expect(r.updated()).toEqual(['x@10 -> x@20', 'x@20 -> x@20', 'x@20 -> x@25']);
    expect(r.deleted()).toEqual([]);
    // A read older than the entry is not put either.
    const now = informer.get('a', 'x') as Obj;
    expect(informer.recache(now, cm('x', '22', 'a', { image: 'v3' }))).toBe(false);
    expect(informer.get('a', 'x')?.metadata?.resourceVersion).toBe('25');
  });

  it('a relist keeps a cached object newer than the listed one', async () => {
    const c = await cluster();
    c.script('a', {
      snapshots: [
        { objects: [cm('x', '10')], resourceVersion: '10' },
        { objects: [cm('x', '12', 'a', { image: 'v2' })], resourceVersion: '12' },
      ],
      watches: [HOLD],
    });
    const informer = start(c);
    await expect.poll(() => informer.hasSynced()).toBe(true);
    await expect.poll(() => c.watches('a').length).toBe(1);
    const entry = informer.get('a', 'x') as Obj;
    expect(informer.recache(entry, cm('x', '30', 'a', { image: 'v3' }))).toBe(true);
    c.deliver([errorEvent(410, 'too old', 'Expired')]);
    await expect.poll(() => c.lists('a').length).toBe(2);
    await expect.poll(() => c.watches('a').length).toBe(2);
    expect(informer.get('a', 'x')).toMatchObject({
      metadata: { resourceVersion: '30' },
      data: { image: 'v3' },
    });
  });
});

describe('informer: handlers', () => {
  it('a throwing onAdd stops neither the list nor the watch', async () => {
    const c = await cluster();
    c.script('a', {
      snapshots: [{ objects: [cm('a1', '1'), cm('a2', '2')], resourceVersion: '100' }],
      watches: [
        {
          events: [
            ev('ADDED', cm('w1', '101')),
            ev('ADDED', cm('w2', '102')),
            ev('MODIFIED', cm('w1', '103')),
          ],
          after: 'hold',
        },
      ],
    });
    const r = recorder();
    r.handlers.onAdd.mockImplementation(() => {
      throw new Error('handler bug');
    });
    const informer = start(c, r.handlers);

    await expect.poll(() => r.updated()).toEqual(['w1@101 -> w1@103']);
    expect(r.added()).toEqual(['a1@1', 'a2@2', 'w1@101', 'w2@102']);
    expect(names(informer.list('a'))).toEqual(['a1', 'a2', 'w1', 'w2']);
    // The same watch carried on: no restart, no relist.
    expect(c.watches('a')).toHaveLength(1);
    expect(c.lists('a')).toHaveLength(1);
    expect(informer.hasSynced()).toBe(true);
  });

  it('a throwing onUpdate or onDelete does not stop later events either', async () => {
    const c = await cluster();
    c.script('a', {
      snapshots: [{ objects: [cm('a1', '1')], resourceVersion: '100' }],
      watches: [
        {
          events: [
            ev('MODIFIED', cm('a1', '101')),
            ev('DELETED', cm('a1', '102')),
            ev('ADDED', cm('after', '103')),
          ],
          after: 'hold',
        },
      ],
    });
    const r = recorder();
    const boom = () => {
      throw new Error('handler bug');
    };
    r.handlers.onUpdate.mockImplementation(boom);
    r.handlers.onDelete.mockImplementation(boom);
    const informer = start(c, r.handlers);

    await expect.poll(() => r.added()).toEqual(['a1@1', 'after@103']);
    expect(r.updated()).toEqual(['a1@1 -> a1@101']);
    expect(r.deleted()).toEqual(['a1@102']);
    expect(names(informer.list('a'))).toEqual(['after']);
    expect(c.watches('a')).toHaveLength(1);
  });
});

describe('informer: stop', () => {
  it('ends a watch held open; no request after it', async () => {
    const c = await cluster();
    c.script('a', { snapshots: [{ objects: [cm('x', '1')], resourceVersion: '100' }] });
    const informer = start(c);
    await expect.poll(() => c.server.openResponses()).toBe(1);
    expect(c.watches('a')).toHaveLength(1);

    await expect(informer.stop()).resolves.toBeUndefined();
    await expect.poll(() => c.server.openResponses()).toBe(0);
    const seen = c.server.requests.length;
    await delay(150);
    expect(c.server.requests).toHaveLength(seen);
  });

  it('ends the backoff between failed watches; no request after it', async () => {
    const c = await cluster();
    c.script('a', {
      snapshots: [{ objects: [], resourceVersion: '100' }],
      watchDefault: { status: 500, body: statusBody(500, 'down', 'InternalError') },
    });
    const informer = start(c, { initialBackoffMs: 20, maxBackoffMs: 40 });
    await expect.poll(() => c.watches('a').length).toBeGreaterThanOrEqual(3);

    await expect(informer.stop()).resolves.toBeUndefined();
    const seen = c.server.requests.length;
    await delay(200);
    expect(c.server.requests).toHaveLength(seen);
  });

  it('ends a list that has not been answered; no watch follows', async () => {
    const c = await cluster();
    const never = new Promise<void>(() => {});
    c.script('a', { snapshots: [{ objects: [cm('x', '1')], resourceVersion: '100' }], listGate: never });
    const r = recorder();
    const informer = start(c, r.handlers);
    await expect.poll(() => c.server.openResponses()).toBe(1);

    await expect(informer.stop()).resolves.toBeUndefined();
    await expect.poll(() => c.server.openResponses()).toBe(0);
    await delay(100);
    expect(c.server.requests).toHaveLength(1);
    expect(c.watches()).toHaveLength(0);
    expect(informer.hasSynced()).toBe(false);
    expect(r.handlers.onAdd).not.toHaveBeenCalled();
  });
});

describe('informer: sync state', () => {
  it('hasSynced() is false until the first list succeeded; onSettled is called once', async () => {
    const c = await cluster();
    let release: () => void = () => {};
    const script = c.script('a', {
      snapshots: [
        { objects: [cm('x', '1')], resourceVersion: '100' },
        { objects: [cm('x', '1'), cm('y', '2')], resourceVersion: '200' },
      ],
      listGate: new Promise<void>((resolve) => {
        release = resolve;
      }),
      watches: [
        { events: [], after: 'end' },
        { events: [errorEvent(410, 'too old', 'Expired')], after: 'hold' },
      ],
    });
    const r = recorder();
    const informer = start(c, r.handlers);

    await expect.poll(() => c.lists('a').length).toBe(1);
    await delay(50);
    expect(informer.hasSynced()).toBe(false);
    expect(informer.namespaceStates()).toEqual([
      { namespace: 'a', informer: PATH, synced: false, error: undefined },
    ]);
    expect(r.handlers.onSettled).not.toHaveBeenCalled();
    expect(informer.list()).toEqual([]);

    script.listGate = undefined;
    release();
    await expect.poll(() => informer.hasSynced()).toBe(true);
    expect(r.handlers.onSettled).toHaveBeenCalledTimes(1);
    // onSettled comes after the listed objects are in the cache and handed to onAdd.
    expect(r.handlers.onAdd).toHaveBeenCalledBefore(r.handlers.onSettled);

    // A resumed watch and a relist later: still once.
    await expect.poll(() => c.watches('a').length).toBe(3);
    expect(c.lists('a')).toHaveLength(2);
    expect(r.added()).toEqual(['x@1', 'y@2']);
    expect(informer.hasSynced()).toBe(true);
    expect(r.handlers.onSettled).toHaveBeenCalledTimes(1);
  });

  it('a namespace whose first list fails is not synced until a list succeeds', async () => {
    const c = await cluster();
    const script = c.script('a', {
      snapshots: [{ objects: [cm('x', '1')], resourceVersion: '100' }],
      listFails: { status: 500, body: statusBody(500, 'etcd timed out', 'InternalError') },
    });
    const r = recorder();
    const informer = start(c, { ...r.handlers, maxBackoffMs: 40 });

    await expect.poll(() => c.lists('a').length).toBeGreaterThanOrEqual(2);
    expect(informer.hasSynced()).toBe(false);
    expect(informer.namespaceStates()[0]).toMatchObject({
      synced: false,
      error: 'etcd timed out (HTTP 500)',
    });
    expect(c.watches('a')).toHaveLength(0);

    script.listFails = undefined;
    await expect.poll(() => informer.hasSynced()).toBe(true);
    expect(informer.namespaceStates()).toEqual([
      { namespace: 'a', informer: PATH, synced: true, error: undefined },
    ]);
    await expect.poll(() => c.watches('a').length).toBe(1);
    // Settled once: when the failure was known, not again when the list succeeded.
    expect(r.handlers.onSettled).toHaveBeenCalledTimes(1);
  });

  it("namespaceStates() carries a namespace's 403 while another namespace syncs", async () => {
    const c = await cluster();
    c.script('good', {
      snapshots: [{ objects: [cm('g1', '1', 'good'), cm('g2', '2', 'good')], resourceVersion: '10' }],
    });
    const denied = c.script('denied', {
      snapshots: [{ objects: [cm('d1', '3', 'denied')], resourceVersion: '11' }],
      listFails: {
        status: 403,
        body: statusBody(
          403,
          'configmaps is forbidden: User "system:serviceaccount:x:y" cannot list resource "configmaps" in the namespace "denied"',
          'Forbidden',
        ),
      },
    });
    const r = recorder();
    const informer = start(c, { ...r.handlers, namespaces: ['good', 'denied'], maxBackoffMs: 40 });

    await expect.poll(() => r.handlers.onSettled.mock.calls.length).toBe(1);
    await expect.poll(() => c.watches('good').length).toBe(1);
    const [good, bad] = informer.namespaceStates();
    expect(good).toEqual({ namespace: 'good', informer: PATH, synced: true, error: undefined });
    expect(bad).toMatchObject({ namespace: 'denied', informer: PATH, synced: false });
    expect(bad?.error).toMatch(/^configmaps is forbidden: .* in the namespace "denied" \(HTTP 403\)$/);
    expect(informer.hasSynced()).toBe(false);
    expect(names(informer.list('good'))).toEqual(['g1', 'g2']);
    expect(informer.list('denied')).toEqual([]);
    expect(c.watches('denied')).toHaveLength(0);
    // The denied namespace keeps trying.
    await expect.poll(() => c.lists('denied').length).toBeGreaterThanOrEqual(3);

    // Once allowed, it syncs and its error is gone; onSettled is not called again.
    denied.listFails = undefined;
    await expect.poll(() => informer.hasSynced()).toBe(true);
    expect(informer.namespaceStates()[1]).toEqual({
      namespace: 'denied',
      informer: PATH,
      synced: true,
      error: undefined,
    });
    expect(names(informer.list())).toEqual(['d1', 'g1', 'g2']);
    expect(r.handlers.onSettled).toHaveBeenCalledTimes(1);
  });
});

describe('informer: a misbehaving API server is not hammered', () => {
  // client-go's backoff at a tenth of its times (80 ms doubling to 3 s, jittered): the waits before the
  // 2nd to 6th attempt are at least 80, 160, 320, 640 and 1,280 ms, so a 1.5 s window holds at most 5.
  const scaled = { initialBackoffMs: 80, maxBackoffMs: 3000 };
  const WINDOW_MS = 1500;
  const AT_MOST = 5;

  it.each<{ name: string; watch: WatchStep; lists: number }>([
    { name: 'watches answer 200 and close at once', watch: { events: [], after: 'end' }, lists: 1 },
    {
      name: 'watches send one bookmark and close at once',
      watch: { events: [bookmark('101')], after: 'end' },
      lists: 1,
    },
    {
      name: 'watches answer 500',
      watch: { status: 500, body: statusBody(500, 'etcd timed out', 'InternalError') },
      lists: 1,
    },
    {
      name: 'every watch answers 410 (each costs a relist)',
      watch: { status: 410, body: statusBody(410, 'too old resource version', 'Gone') },
      lists: AT_MOST,
    },
    {
      name: 'every watch sends a 410 ERROR event and closes',
      watch: { events: [errorEvent(410, 'too old resource version', 'Expired')], after: 'end' },
      lists: AT_MOST,
    },
  ])('$name: at most one attempt per backoff', async ({ watch, lists }) => {
    const c = await cluster();
    c.script('a', { snapshots: [{ objects: [cm('x', '90')], resourceVersion: '100' }], watchDefault: watch });
    const informer = start(c, scaled);
    await expect.poll(() => c.watches('a').length).toBeGreaterThanOrEqual(2);
    await delay(WINDOW_MS);
    await informer.stop();

    expect(c.watches('a').length).toBeLessThanOrEqual(AT_MOST);
    expect(c.lists('a').length).toBeLessThanOrEqual(lists);
    expect(informer.get('a', 'x')).toBeDefined();
  });

  it("with client-go's default backoff, two namespaces of instantly closing watches cost a few requests a second", async () => {
    const c = await cluster();
    for (const ns of ['a', 'b']) {
      c.script(ns, {
        snapshots: [{ objects: [cm('x', '90', ns)], resourceVersion: '100' }],
        watchDefault: { events: [], after: 'end' },
      });
    }
    const informer = start(c, {
      namespaces: ['a', 'b'],
      initialBackoffMs: undefined,
      maxBackoffMs: undefined,
    });
    await expect.poll(() => c.watches().length).toBeGreaterThanOrEqual(2);
    await delay(2000);
    await informer.stop();

    // Per namespace: a list, a watch, and at most two more after waits of at least 0.8 and 1.6 s.
    expect(c.lists()).toHaveLength(2);
    expect(c.watches().length).toBeLessThanOrEqual(6);
  });
});
