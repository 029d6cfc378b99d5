import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  answerJson,
  type FakeApiServer,
  type FakeHandler,
  startFakeApiServer,
  statusBody,
} from './fake-api-server.test-support.ts';
import { WatchError, type WatchEvent, type WatchRequest, watchStream } from './watch.ts';

const MiB = 1024 * 1024;
/** watch.ts's cap on one line. */
const MAX_LINE_BYTES = 16 * MiB;

/** Every fake server a test starts, closed after it. */
const servers: FakeApiServer[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: FakeHandler): Promise<FakeApiServer> {
  const server = await startFakeApiServer(handler);
  servers.push(server);
  return server;
}

/** A 200 whose body is the given pieces, each written on its own after a pause, then ended (or held open). */
function pieces(parts: (string | Buffer)[], end: 'end' | 'hold' = 'end'): FakeHandler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    void (async () => {
      for (const part of parts) {
        // A pause between writes so each arrives as a chunk of its own.
        await delay(15);
        if (res.destroyed) return;
        res.write(part);
      }
      if (end === 'end') res.end();
    })();
  };
}

function request(more: Partial<WatchRequest> = {}): WatchRequest {
  return {
    path: '/api/v1/namespaces/a/secrets',
    resourceVersion: '100',
    timeoutSeconds: 300,
    signal: new AbortController().signal,
    ...more,
  };
}

/** Runs one watch against the server and returns the events it handed over. */
async function watchAll(server: FakeApiServer, more: Partial<WatchRequest> = {}): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  await watchStream(server.access(), request(more), (e) => events.push(e));
  return events;
}

const event = (type: WatchEvent['type'], name: string, rv: string, more: Record<string, unknown> = {}) => ({
  type,
  object: { kind: 'Secret', metadata: { name, namespace: 'a', resourceVersion: rv }, ...more },
});
const line = (e: unknown) => `${JSON.stringify(e)}\n`;

describe('watchStream: events across chunk boundaries', () => {
  const a = event('ADDED', 'a', '101');
  const b = event('MODIFIED', 'b', '102');
  const c = event('DELETED', 'c', '103');
  const aText = line(a);
  const utf8 = event('ADDED', 'ü', '104', { data: { note: 'grüße, 日本' } });
  const utf8Bytes = Buffer.from(line(utf8));
  // Inside the first multi-byte character: neither half is valid UTF-8 on its own.
  const cut = utf8Bytes.indexOf(Buffer.from('ü')) + 1;

  it.each<{ name: string; parts: (string | Buffer)[]; want: unknown[] }>([
    {
      name: 'one event over several writes',
      parts: [aText.slice(0, 7), aText.slice(7, 30), aText.slice(30, -1), '\n'],
      want: [a],
    },
    { name: 'several events in one write', parts: [line(a) + line(b) + line(c)], want: [a, b, c] },
    {
      name: 'a write ending inside the second of two events',
      parts: [line(a) + line(b).slice(0, 12), line(b).slice(12) + line(c)],
      want: [a, b, c],
    },
    { name: 'a trailing event without a final newline', parts: [line(a), JSON.stringify(b)], want: [a, b] },
    {
      name: 'a trailing event without a newline, split over writes',
      parts: [line(a), JSON.stringify(b).slice(0, 10), JSON.stringify(b).slice(10)],
      want: [a, b],
    },
    { name: 'blank lines between events', parts: [`\n${line(a)}\n\n`, line(b)], want: [a, b] },
    {
      name: 'a multi-byte character split between writes',
      parts: [utf8Bytes.subarray(0, cut), utf8Bytes.subarray(cut)],
      want: [utf8],
    },
    { name: 'an empty body', parts: [], want: [] },
  ])('$name', async ({ parts, want }) => {
    const server = await serve(pieces(parts));
    expect(await watchAll(server)).toEqual(want);
  });

  it('hands each event over as its line completes, before the stream ends', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(aText.slice(0, 20));
      void delay(15).then(async () => {
        res.write(aText.slice(20));
        await released;
        res.end(line(b));
      });
    });
    const events: WatchEvent[] = [];
    const done = watchStream(server.access(), request(), (e) => events.push(e));
    await expect.poll(() => events).toEqual([a]);
    release();
    await done;
    expect(events).toEqual([a, b]);
  });
});

describe('watchStream: the request', () => {
  it.each<{ name: string; more: Partial<WatchRequest>; query: Record<string, string>; accept: string }>([
    {
      name: 'defaults',
      more: {},
      query: { watch: 'true', resourceVersion: '100', allowWatchBookmarks: 'true', timeoutSeconds: '300' },
      accept: 'application/json',
    },
    {
      name: 'a label selector and another version',
      more: { labelSelector: 'app=x,tier!=db', resourceVersion: '7', timeoutSeconds: 451 },
      query: {
        watch: 'true',
        resourceVersion: '7',
        allowWatchBookmarks: 'true',
        timeoutSeconds: '451',
        labelSelector: 'app=x,tier!=db',
      },
      accept: 'application/json',
    },
    {
      name: 'a metadata-only accept',
      more: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json' },
      query: { watch: 'true', resourceVersion: '100', allowWatchBookmarks: 'true', timeoutSeconds: '300' },
      accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
    },
  ])('$name', async ({ more, query, accept }) => {
    const server = await serve(pieces([]));
    await watchAll(server, more);
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent?.method).toBe('GET');
    expect(sent?.path).toBe('/api/v1/namespaces/a/secrets');
    expect(Object.fromEntries(sent?.query ?? [])).toEqual(query);
    expect(sent?.headers.accept).toBe(accept);
    expect(sent?.headers['user-agent']).toBe('agent-deployment-operator');
  });
});

describe('watchStream: failures', () => {
  it.each<{ name: string; status: number; body: unknown; message: string }>([
    {
      name: '403 with a Status',
      status: 403,
      body: statusBody(403, 'secrets is forbidden: User "x" cannot watch resource "secrets"', 'Forbidden'),
      message: 'secrets is forbidden: User "x" cannot watch resource "secrets"',
    },
    {
      name: '410 with a Status',
      status: 410,
      body: statusBody(410, 'too old resource version: 100 (2000)', 'Expired'),
      message: 'too old resource version: 100 (2000)',
    },
    {
      name: '500 with a Status',
      status: 500,
      body: statusBody(500, 'etcdserver: request timed out', 'InternalError'),
      message: 'etcdserver: request timed out',
    },
    { name: '503 with a body that is not JSON', status: 503, body: 'upstream down', message: 'HTTP 503' },
    { name: '404 with an empty body', status: 404, body: undefined, message: 'HTTP 404' },
  ])('$name -> WatchError', async ({ status, body, message }) => {
    const server = await serve((_req, res) => {
      if (typeof body === 'string') {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(body);
      } else if (body === undefined) {
        res.writeHead(status);
        res.end();
      } else answerJson(res, status, body);
    });
    const access = server.access();
    const refused = vi.spyOn(access, 'refused');
    const onEvent = vi.fn();
    const err = await watchStream(access, request(), onEvent).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WatchError);
    expect(err).toMatchObject({ status, message });
    expect(onEvent).not.toHaveBeenCalled();
    expect(refused).not.toHaveBeenCalled();
  });

  it('a 401 tells the access its credentials were refused', async () => {
    const server = await serve((_req, res) => answerJson(res, 401, statusBody(401, 'Unauthorized')));
    const access = server.access();
    const refused = vi.spyOn(access, 'refused');
    await expect(watchStream(access, request(), () => {})).rejects.toMatchObject({
      name: 'WatchError',
      status: 401,
      message: 'Unauthorized',
    });
    expect(refused).toHaveBeenCalledTimes(1);
  });

  it('a line that is not JSON rejects, after the events before it', async () => {
    const a = event('ADDED', 'a', '101');
    const server = await serve(pieces([line(a), '{"type":"ADDED","object":{}', '}\nnot json\n', line(a)]));
    const events: WatchEvent[] = [];
    const err = await watchStream(server.access(), request(), (e) => events.push(e)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WatchError);
    expect(err).toMatchObject({ status: undefined, message: expect.stringMatching(/not JSON/) });
    expect(events).toEqual([a, { type: 'ADDED', object: {} }]);
  });

  it.each<{ name: string; text: string }>([
    { name: 'no object', text: '{"type":"ADDED"}' },
    { name: 'a null object', text: '{"type":"ADDED","object":null}' },
    { name: 'an object that is a string', text: '{"type":"ADDED","object":"x"}' },
    { name: 'no type', text: '{"object":{"metadata":{"name":"a"}}}' },
    { name: 'a type that is a number', text: '{"type":1,"object":{}}' },
    { name: 'null', text: 'null' },
    { name: 'a number', text: '42' },
    { name: 'a string', text: '"ADDED"' },
    { name: 'an array', text: '[{"type":"ADDED","object":{}}]' },
  ])('a JSON line that is not an event ($name) rejects', async ({ text }) => {
    const server = await serve(pieces([`${text}\n`]));
    const onEvent = vi.fn();
    const err = await watchStream(server.access(), request(), onEvent).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WatchError);
    expect((err as Error).message).toMatch(/not an event/);
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('a trailing line that is not an event, without a newline, rejects too', async () => {
    const server = await serve(pieces([line(event('ADDED', 'a', '1')), '{"type":"ADDED"}']));
    await expect(watchAll(server)).rejects.toThrow(/not an event/);
  });

  it('a connection cut mid-stream rejects (it is not the server ending the watch)', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(line(event('ADDED', 'a', '1')));
      res.write('{"type":"MODI');
      void delay(20).then(() => res.destroy());
    });
    const events: WatchEvent[] = [];
    await expect(watchStream(server.access(), request(), (e) => events.push(e))).rejects.toThrow();
    expect(events).toHaveLength(1);
  });

  it('a throwing onEvent rejects the watch with its error', async () => {
    const server = await serve(pieces([line(event('ADDED', 'a', '1')), line(event('ADDED', 'b', '2'))]));
    const boom = new Error('handler failed');
    const onEvent = vi.fn(() => {
      throw boom;
    });
    await expect(watchStream(server.access(), request(), onEvent)).rejects.toBe(boom);
    expect(onEvent).toHaveBeenCalledTimes(1);
  });
});

describe('watchStream: the line cap', () => {
  /** Writes `bytes` of filler with no newline in 1 MiB writes, minding back-pressure. */
  function longLine(res: ServerResponse, prefix: string, bytes: number, suffix: string): void {
    const chunk = Buffer.alloc(MiB, 0x61);
    let left = bytes;
    res.write(prefix);
    const more = () => {
      while (left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        if (!res.write(part)) return void res.once('drain', more);
      }
      res.end(suffix);
    };
    res.on('close', () => {
      left = 0;
    });
    more();
  }

  it('a line over 16 MiB is refused, not buffered', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      longLine(res, '{"type":"ADDED","object":{"data":"', MAX_LINE_BYTES + MiB, '"}}\n');
    });
    const onEvent = vi.fn();
    const err = await watchStream(server.access(), request(), onEvent).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WatchError);
    expect((err as Error).message).toMatch(/larger than 16777216 bytes/);
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('the cap is on one line: 20 lines of 1 MiB each, cut across writes, all arrive', async () => {
    const one = (i: number) => line({ type: 'ADDED', object: { i, data: 'b'.repeat(MiB) } });
    const stream = Buffer.from(Array.from({ length: 20 }, (_, i) => one(i)).join(''));
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Writes of 700 KiB: almost every one ends inside a line.
      const size = 700 * 1024;
      let at = 0;
      const more = () => {
        while (at < stream.length) {
          const part = stream.subarray(at, at + size);
          at += part.length;
          if (!res.write(part)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const seen: unknown[] = [];
    await watchStream(server.access(), request(), (e) => seen.push(e.object.i));
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('a line of 15 MiB, under the cap, is an event', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      longLine(res, '{"type":"ADDED","object":{"data":"', 15 * MiB, '"}}\n');
    });
    const sizes: number[] = [];
    await watchStream(server.access(), request(), (e) => sizes.push(String(e.object.data).length));
    expect(sizes).toEqual([15 * MiB]);
  });
});

describe('watchStream: ending', () => {
  it('aborting the signal mid-stream resolves, and the connection is closed', async () => {
    const server = await serve(pieces([line(event('ADDED', 'a', '1'))], 'hold'));
    const stop = new AbortController();
    const events: WatchEvent[] = [];
    const done = watchStream(server.access(), request({ signal: stop.signal }), (e) => events.push(e));
    await expect.poll(() => events.length).toBe(1);
    stop.abort();
    await expect(done).resolves.toBeUndefined();
    await expect.poll(() => server.openResponses()).toBe(0);
  });

  it('a signal aborted while the stream is quiet resolves without more events', async () => {
    const server = await serve(pieces([], 'hold'));
    const stop = new AbortController();
    const onEvent = vi.fn();
    const done = watchStream(server.access(), request({ signal: stop.signal }), onEvent);
    await expect.poll(() => server.requests.length).toBe(1);
    await delay(30);
    stop.abort();
    await expect(done).resolves.toBeUndefined();
    expect(onEvent).not.toHaveBeenCalled();
  });

  // BUG (watch.ts): the abort check (`if (request.signal.aborted) return`) is only in the catch around
  // the body; an abort before the response headers arrive rejects from dispatcher.request with undici's
  // AbortError instead of resolving. The informer copes (its catch checks its own signal), but the
  // contract "aborting resolves" does not hold. Remove `.fails` once fixed.
  it('aborting the signal before the response headers arrive resolves', async () => {
    const server = await serve(() => {});
    const stop = new AbortController();
    const done = watchStream(server.access(), request({ signal: stop.signal }), () => {});
    await expect.poll(() => server.requests.length).toBe(1);
    stop.abort();
    await expect(done).resolves.toBeUndefined();
  });

  // vi.useFakeTimers cannot drive this: AbortSignal.timeout runs on Node's internal timers, which
  // vitest's fake timers do not replace (tried: 40 s of fake time left the watch pending). So the
  // deadline's signal is swapped for one the test fires, and the asked-for delay is checked.
  it('a stream silent past timeoutSeconds + 30 s is cut by its own deadline', async () => {
    // The watch's own deadline timer (the only one of 72 s), taken to be fired here.
    const asked: number[] = [];
    let fireDeadline: (() => void) | undefined;
    const setTimer = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      if (ms === 72_000) {
        asked.push(ms);
        fireDeadline = fn;
      }
      return setTimer(fn, ms);
    }) as typeof setTimeout);
    const server = await serve(pieces([line(event('ADDED', 'a', '1'))], 'hold'));
    const events: WatchEvent[] = [];
    let settled = false;
    const done = watchStream(server.access(), request({ timeoutSeconds: 42 }), (e) => events.push(e)).finally(
      () => {
        settled = true;
      },
    );
    await expect.poll(() => events.length).toBe(1);
    expect(asked).toEqual([42_000 + 30_000]);
    // Silent, but the deadline has not passed: the watch goes on.
    await delay(50);
    expect(settled).toBe(false);
    fireDeadline?.();
    const err = await done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WatchError);
    expect((err as Error).message).toMatch(/stayed open past its timeout/);
    await expect.poll(() => server.openResponses()).toBe(0);
  });
});
