/**
 * KubeAccess over real sockets on loopback: an HTTPS API server stand-in that offers HTTP/2 (and says
 * which version a request came in), and CONNECT proxies that tunnel whatever host is asked for to it.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generatePki } from '../localcluster/certs.ts';
import { KubeAccess } from './access.ts';
import { kubeRequest } from './request.ts';
import type { KubeTarget } from './target.ts';

/** A CONNECT proxy that sends every tunnel to the API server stand-in, recording what was asked. */
interface Proxy {
  url: string;
  /** The authority of each CONNECT, e.g. kube.test:6443. */
  connects: string[];
  server: Server;
}

let dir: string;
let ca: Buffer;
let api: Http2SecureServer;
let apiPort: number;
const sockets = new Set<Socket>();

async function startProxy(): Promise<Proxy> {
  const connects: string[] = [];
  const server = createHttpServer((_req, res) => {
    res.writeHead(405).end('CONNECT only');
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    sockets.add(client);
    const upstream = connect(apiPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, connects, server };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agd-access-net-'));
  const pki = await generatePki(join(dir, 'pki'));
  ca = await readFile(pki.caCert);
  api = createSecureServer(
    { key: await readFile(pki.servingKey), cert: await readFile(pki.servingCert), allowHTTP1: true },
    (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ httpVersion: req.httpVersion, path: req.url }));
    },
  );
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiPort = (api.address() as AddressInfo).port;
});

const proxies: Proxy[] = [];
const accesses: KubeAccess[] = [];
afterEach(async () => {
  await Promise.all(accesses.splice(0).map((a) => a.close()));
  for (const s of sockets) s.destroy();
  sockets.clear();
  await Promise.all(proxies.splice(0).map((p) => new Promise((resolve) => p.server.close(resolve))));
});
afterAll(async () => {
  await new Promise((resolve) => api.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function proxy(): Promise<Proxy> {
  const p = await startProxy();
  proxies.push(p);
  return p;
}

/** Access to the stand-in by a name only a proxy can reach (kube.test resolves nowhere). */
function access(env: NodeJS.ProcessEnv, more: Partial<KubeTarget> = {}, host = 'kube.test'): KubeAccess {
  const a = new KubeAccess(
    {
      source: 'test',
      server: `https://${host}:${apiPort}`,
      // The serving certificate is for localhost and 127.0.0.1.
      tls: { ca, insecure: false, serverName: 'localhost' },
      auth: { token: 't' },
      ...more,
    },
    { env },
  );
  accesses.push(a);
  return a;
}

const version = (a: KubeAccess) => kubeRequest(a, { method: 'GET', path: '/version', deadlineMs: 10_000 });

describe('KubeAccess: the proxy the environment names', () => {
  it.each<[string, (p: Proxy) => NodeJS.ProcessEnv]>([
    ['HTTPS_PROXY', (p) => ({ HTTPS_PROXY: p.url })],
    ['https_proxy', (p) => ({ https_proxy: p.url })],
    ['HTTPS_PROXY as host:port', (p) => ({ HTTPS_PROXY: p.url.replace('http://', '') })],
    [
      'HTTPS_PROXY, with NO_PROXY naming other hosts',
      (p) => ({ HTTPS_PROXY: p.url, NO_PROXY: 'example.com,10.0.0.0/8' }),
    ],
  ])('carries requests through %s', async (_case, env) => {
    const p = await proxy();
    await expect(version(access(env(p)))).resolves.toEqual({ httpVersion: '1.1', path: '/version' });
    expect(p.connects).toEqual([`kube.test:${apiPort}`]);
  });

  it("gives way to the kubeconfig's proxy-url", async () => {
    const fromKubeconfig = await proxy();
    const fromEnv = await proxy();
    const a = access({ HTTPS_PROXY: fromEnv.url }, { proxyUrl: fromKubeconfig.url });
    await expect(version(a)).resolves.toMatchObject({ path: '/version' });
    expect(fromKubeconfig.connects).toEqual([`kube.test:${apiPort}`]);
    expect(fromEnv.connects).toEqual([]);
  });

  it('is not used for a loopback server', async () => {
    const p = await proxy();
    await expect(version(access({ HTTPS_PROXY: p.url }, {}, '127.0.0.1'))).resolves.toMatchObject({
      path: '/version',
    });
    expect(p.connects).toEqual([]);
  });
});

describe('KubeAccess: HTTP/1.1 only, on purpose (see access.ts)', () => {
  it.each<[string, boolean]>([
    ['directly', false],
    ['through a proxy', true],
  ])('speaks HTTP/1.1 to a server that offers HTTP/2, %s', async (_case, proxied) => {
    const a = proxied ? access({ HTTPS_PROXY: (await proxy()).url }) : access({}, {}, '127.0.0.1');
    await expect(version(a)).resolves.toEqual({ httpVersion: '1.1', path: '/version' });
  });
});
