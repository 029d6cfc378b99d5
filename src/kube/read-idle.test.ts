import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../lib/undici.ts';
import { readIdleConnector } from './read-idle.ts';

const TIMINGS = { pingIntervalMs: 50, readIdleMs: 300 };

function selfSigned(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'read-idle-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' }); // biome-ignore format: one argument list
  return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
}
const tls = selfSigned();

/** A TCP relay to `port` whose open connections can go silent (a NAT that forgot them): new ones relay. */
async function relay(port: number) {
  const silenced = new Set<net.Socket>();
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    open.add(client);
    client.on('data', (d) => silenced.has(client) || upstream.write(d));
    upstream.on('data', (d) => silenced.has(client) || client.write(d));
    const end = () => {
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    silence: () => {
      for (const socket of open) silenced.add(socket);
    },
    close: () => {
      for (const socket of open) socket.destroy();
      server.close();
    },
  };
}

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A server whose /watch streams one line and then nothing; every other path answers "ok". */
function serve(server: http2.Http2SecureServer | https.Server) {
  server.on('request', (req, res) => {
    if (req.url === '/watch') {
      res.writeHead(200);
      res.write('{"type":"ADDED"}\n');
      return;
    }
    res.end('ok');
  });
}
async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return (server.address() as net.AddressInfo).port;
}

async function watchUntilEnd(agent: Agent, port: number): Promise<{ ended: string; afterMs: number }> {
  const res = await agent.request({ origin: `https://127.0.0.1:${port}`, path: '/watch', method: 'GET' });
  const started = performance.now();
  try {
    for await (const _ of res.body) {
      // a line, then silence
    }
    return { ended: 'end', afterMs: performance.now() - started };
  } catch (err) {
    return { ended: (err as Error).message, afterMs: performance.now() - started };
  }
}

describe('readIdleConnector', () => {
  it('drops an HTTP/2 connection that reads nothing (PINGs unanswered), and the next request connects anew', async () => {
    const server = http2.createSecureServer({ ...tls, allowHTTP1: true });
    serve(server);
    const path = await relay(await listen(server));
    closers.push(path.close);
    const agent = new Agent({
      connect: readIdleConnector({ ca: tls.cert }, TIMINGS),
      allowH2: true,
      pingInterval: TIMINGS.pingIntervalMs,
    });
    closers.push(() => void agent.destroy());
    const watching = watchUntilEnd(agent, path.port);
    // Healthy for many read-idle periods: the PINGs' answers keep it alive.
    await new Promise((r) => setTimeout(r, TIMINGS.readIdleMs * 3));
    path.silence();
    const { ended } = await watching;
    expect(ended).toMatch(/read nothing for 0\.3s/);
    const res = await agent.request({ origin: `https://127.0.0.1:${path.port}`, path: '/', method: 'GET' });
    expect(await res.body.text()).toBe('ok');
  });

  it('leaves an HTTP/1.1 connection alone: a quiet watch there reads nothing and is healthy', async () => {
    const server = https.createServer(tls);
    serve(server);
    const port = await listen(server);
    const agent = new Agent({ connect: readIdleConnector({ ca: tls.cert }, TIMINGS), allowH2: true });
    closers.push(() => void agent.destroy());
    const res = await agent.request({ origin: `https://127.0.0.1:${port}`, path: '/watch', method: 'GET' });
    let failed: unknown;
    res.body.on('error', (err) => {
      failed = err;
    });
    res.body.resume();
    await new Promise((r) => setTimeout(r, TIMINGS.readIdleMs * 3));
    expect(failed).toBeUndefined();
    res.body.destroy();
  });
});
