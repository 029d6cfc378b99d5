import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetch, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamSpaces } from '../../test/support/hostile-server.ts';
import { OutboundError, outboundCall, type RawResponse } from './outbound.ts';

/** Local servers that misbehave the ways a hostile peer can. */
const routes: Record<string, (res: ServerResponse) => void> = {
  '/ok': (res) => res.end('{"ok":true}'),
  // One byte every 50 ms, forever: an idle timer never fires.
  '/trickle': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(timer));
  },
  // 100 MB streamed in 64 KiB chunks, with no content-length.
  '/huge': (res) => {
    res.writeHead(200);
    streamSpaces(res, 100 * 1024 * 1024);
  },
  '/declared-huge': (res) => {
    res.writeHead(200, { 'content-length': String(100 * 1024 * 1024) });
    res.write('x');
  },
  '/hang': () => {},
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => routes[req.url ?? '']?.(res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const viaRequest =
  (path: string) =>
  async (signal: AbortSignal): Promise<RawResponse> => {
    const res = await request(`${base}${path}`, { signal });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  };
const viaFetch =
  (path: string) =>
  async (signal: AbortSignal): Promise<RawResponse> => {
    const res = await fetch(`${base}${path}`, { signal });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: res.body };
  };

const failure = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutboundError);
  return err as OutboundError;
};

describe.each([
  ['undici request', viaRequest],
  ['fetch', viaFetch],
])('outboundCall over %s', (_, via) => {
  const limits = { deadlineMs: 500, maxBodyBytes: 1024 * 1024 };

  it('returns status and text', async () => {
    const res = await outboundCall(limits, via('/ok'));
    expect(res).toMatchObject({ status: 200, text: '{"ok":true}' });
  });

  it.each<[string, string, OutboundError['kind']]>([
    ['a trickling body ends at the deadline', '/trickle', 'deadline'],
    ['a server that never answers ends at the deadline', '/hang', 'deadline'],
    ['a 100 MB body is abandoned past the cap', '/huge', 'body-too-large'],
    ['a declared 100 MB body is refused before reading', '/declared-huge', 'body-too-large'],
  ])('%s', async (_, path, kind) => {
    expect((await failure(outboundCall(limits, via(path)))).kind).toBe(kind);
  });

  it("the caller's signal aborts a call in flight", async () => {
    const stop = new AbortController();
    const call = outboundCall({ ...limits, deadlineMs: 60_000, signal: stop.signal }, via('/hang'));
    setTimeout(() => stop.abort(), 20);
    expect((await failure(call)).kind).toBe('aborted');
  });

  it('a call that ended leaves no deadline behind to fire later', async () => {
    // A deadline that fired after its call had ended aborted the call's signal anyway, making a
    // DOMException and an abort event per call (visible per object in the controller's profiles).
    let seen: AbortSignal | undefined;
    await outboundCall({ ...limits, deadlineMs: 50 }, async (signal) => {
      seen = signal;
      return via('/ok')(signal);
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(seen?.aborted).toBe(false);
  });

  it('an already-aborted signal sends nothing', async () => {
    let sent = false;
    const call = outboundCall({ ...limits, signal: AbortSignal.abort() }, async (signal) => {
      sent = true;
      return via('/ok')(signal);
    });
    expect((await failure(call)).kind).toBe('aborted');
    expect(sent).toBe(false);
  });
});
