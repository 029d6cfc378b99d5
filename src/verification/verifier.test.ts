import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHostAllowList } from './host-allow-list.ts';
import { Verifier, type VerifyRequest } from './verifier.ts';

// An agent server that counts what reaches it and answers /ok with a 503, so a verification that is
// allowed to call ends Failed in its first request, and one that is not makes none.
let server: Server;
let allowedUrl: string;
let foreignUrl: string;
let foreign: Server;
const seen: string[] = [];
/** When set, the allowed server redirects to the foreign one. */
let redirect = false;

const listen = async (s: Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  const handler = (name: string) => (req: { url?: string }, res: import('node:http').ServerResponse) => {
    seen.push(`${name} ${req.url}`);
    if (redirect) res.writeHead(302, { location: `${foreignUrl}/ok` }).end();
    else res.writeHead(503, { 'content-type': 'application/json' }).end('{"detail":"warming up"}');
  };
  server = createServer(handler('allowed'));
  foreign = createServer(handler('foreign'));
  allowedUrl = await listen(server);
  foreignUrl = await listen(foreign);
});

afterAll(async () => {
  await Promise.all([server, foreign].map((s) => new Promise<void>((r) => s.close(() => r()))));
});

const verifierFor = () =>
  new Verifier({
    allowedHosts: parseHostAllowList(`http://${new URL(allowedUrl).host}`),
    backoffBaseMs: 1_000,
    now: () => new Date('2026-01-01T00:00:00Z'),
  });

const requestFor = (url: string, credentialsOwner: 'controller' | 'namespace'): VerifyRequest => ({
  key: 'ns/a',
  namespace: 'ns',
  name: 'a',
  uid: 'uid-1',
  spec: { assistantId: 'agent', webhook: false },
  revisionId: 'rev-1',
  url,
  credentials: { baseUrl: allowedUrl, apiKey: 'key-1' },
  credentialsOwner,
  record: undefined,
  log: pino({ level: 'silent' }),
});

describe('Verifier: where the credentials may go', () => {
  it('does not follow a redirect from an allowed host to a foreign one', async () => {
    seen.length = 0;
    redirect = true;
    try {
      const result = await verifierFor().step(requestFor(allowedUrl, 'controller'));
      expect(result.view.outcome.reason).toBe('VerificationFailed');
      expect(seen).toEqual(['allowed /ok']);
    } finally {
      redirect = false;
    }
  });

  it.each<[string, 'allowed' | 'foreign', 'controller' | 'namespace', string, string[]]>([
    ['the controller key, an allowed host', 'allowed', 'controller', 'VerificationFailed', ['allowed /ok']],
    ['the controller key, a foreign host: no request', 'foreign', 'controller', 'URLNotAllowed', []],
    ["a namespace's own key, its own URL", 'foreign', 'namespace', 'VerificationFailed', ['foreign /ok']],
  ])('%s', async (_case, which, credentialsOwner, reason, requests) => {
    seen.length = 0;
    const url = which === 'allowed' ? allowedUrl : foreignUrl;
    const result = await verifierFor().step(requestFor(url, credentialsOwner));
    expect(result.view.outcome.reason).toBe(reason);
    expect(seen).toEqual(requests);
    if (reason === 'URLNotAllowed') {
      expect(result.view.outcome.kind).toBe('stalled');
      expect(result.view.outcome.message).toContain(url);
      expect(result.record.current).toBeUndefined();
    } else {
      expect(result.record.last?.message).toBe('GET /ok answered 503: warming up');
    }
  });
});
