import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHostAllowList } from './host-allow-list.ts';
import { internalAddressPolicy } from './internal-addresses.ts';
import { Verifier, type VerifyRequest } from './verifier.ts';

// An agent server that counts what reaches it and answers /ok with a 503, so a verification that is
// allowed to call ends Failed in its first request, and one that is not makes none.
let server: Server;
let allowedUrl: string;
let foreignUrl: string;
let foreign: Server;
const seen: string[] = [];
/** The X-Api-Key of each request that reached a server ('-' for none), in order. */
const keys: string[] = [];
/** When set, the allowed server redirects to the foreign one. */
let redirect = false;

const listen = async (s: Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  const handler =
    (name: string) => (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      seen.push(`${name} ${req.url}`);
      keys.push(String(req.headers['x-api-key'] ?? '-'));
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

const verifiers: Verifier[] = [];
afterAll(async () => {
  await Promise.all(verifiers.map((v) => v.close()));
});
/** `internal`: the administrator's --agent-server-allowed-internal-addresses (default: none). */
const verifierFor = (internal?: string) => {
  const verifier = new Verifier({
    allowedHosts: parseHostAllowList(`http://${new URL(allowedUrl).host}`),
    ...(internal === undefined ? {} : { internalAddresses: internalAddressPolicy(internal) }),
    backoffBaseMs: 1_000,
    now: () => new Date('2026-01-01T00:00:00Z'),
  });
  verifiers.push(verifier);
  return verifier;
};

/** `urlChosenBy`: platform (repo_host's assigned URL) unless a row says the namespace chose it. */
const requestFor = (
  url: string,
  credentialsOwner: 'controller' | 'namespace',
  more: Partial<VerifyRequest> = {},
): VerifyRequest => ({
  key: 'ns/a',
  namespace: 'ns',
  name: 'a',
  uid: 'uid-1',
  spec: { assistantId: 'agent', webhook: false },
  revisionId: 'rev-1',
  url,
  urlChosenBy: 'platform',
  ...more,
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
    [
      "a namespace's own key, its own (allowed internal) URL",
      'foreign',
      'namespace',
      'VerificationFailed',
      ['foreign /ok'],
    ],
  ])('%s', async (_case, which, credentialsOwner, reason, requests) => {
    seen.length = 0;
    const url = which === 'allowed' ? allowedUrl : foreignUrl;
    const result = await verifierFor('127.0.0.0/8').step(requestFor(url, credentialsOwner));
    expect(result.view.outcome.reason).toBe(reason);
    expect(seen).toEqual(requests);
    if (reason === 'URLNotAllowed') {
      expect(result.view.outcome.kind).toBe('stalled');
      expect(result.view.outcome.message).toContain(url);
      expect(result.record.current).toBeUndefined();
    } else if (credentialsOwner === 'controller') {
      expect(result.record.last?.message).toBe('GET /ok answered 503: warming up');
    } else {
      // A namespace's URL is its own choice: nothing of what answers there comes back into status.
      expect(result.record.last?.message).toBe('GET /ok answered 503');
    }
  });
});

describe("Verifier: where a namespace's own credentials may go", () => {
  const port = () => new URL(foreignUrl).port;
  it.each<[string, () => string, string | undefined, string]>([
    ['a loopback address', () => foreignUrl, undefined, 'is loopback'],
    ['a name that resolves to loopback', () => `http://localhost:${port()}`, undefined, 'is loopback'],
    [
      'loopback written as IPv4 in IPv6',
      () => `http://[::ffff:127.0.0.1]:${port()}`,
      undefined,
      'is loopback',
    ],
    ['the metadata service (link-local)', () => 'http://169.254.169.254/latest', undefined, 'is link-local'],
    ['the unspecified address', () => `http://0.0.0.0:${port()}`, undefined, 'is unspecified'],
    ['a private address', () => 'http://10.96.0.1:443', undefined, 'is private'],
    ['loopback, when the administrator allows another range', () => foreignUrl, '10.0.0.0/8', 'is loopback'],
  ])('%s: no request, Stalled URLNotAllowed naming the setting', async (_case, url, allowed, why) => {
    seen.length = 0;
    const result = await verifierFor(allowed).step(requestFor(url(), 'namespace'));
    expect(result.view.outcome).toMatchObject({ kind: 'stalled', reason: 'URLNotAllowed' });
    expect(result.view.outcome.message).toContain(why);
    expect(result.view.outcome.message).toContain('--agent-server-allowed-internal-addresses');
    expect(result.view.outcome.message).toContain('no request was made');
    expect(seen).toEqual([]);
  });

  it.each<[string, string]>([
    ['a range', '127.0.0.0/8'],
    ['an address', '127.0.0.1'],
    ['a host name', 'localhost'],
  ])('the administrator allows %s: the call is made', async (_case, allowed) => {
    seen.length = 0;
    const url = allowed === 'localhost' ? `http://localhost:${port()}` : foreignUrl;
    // localhost may resolve to ::1 first; the server listens on 127.0.0.1 only.
    const result = await verifierFor(allowed).step(requestFor(url, 'namespace'));
    if (allowed !== 'localhost' || seen.length > 0) expect(seen).toEqual(['foreign /ok']);
    expect(result.view.outcome.reason).not.toBe('URLNotAllowed');
  });
});

describe('Verifier: the appended path stays the path', () => {
  it.each<[string, string, 'controller' | 'namespace']>([
    ['a fragment', '/admin#', 'controller'],
    ['a query', '/admin?next=', 'controller'],
    ['an empty query', '/admin?', 'namespace'],
  ])('a URL with %s gets no request and names the field', async (_case, suffix, owner) => {
    seen.length = 0;
    const result = await verifierFor('127.0.0.0/8').step(requestFor(`${allowedUrl}${suffix}`, owner));
    expect(result.view.outcome).toMatchObject({ kind: 'stalled', reason: 'URLNotAllowed' });
    expect(result.view.outcome.message).toContain('spec.sourceConfig.customUrl must not have a query');
    expect(seen).toEqual([]);
  });

  it('a URL with a path keeps it before the verification paths', async () => {
    seen.length = 0;
    await verifierFor().step(requestFor(`${allowedUrl}/deployments/d-1/`, 'controller'));
    expect(seen).toEqual(['allowed /deployments/d-1/ok']);
  });
});

describe('hole 1 (issue 52): a control-plane key never follows a URL a namespace chose', () => {
  const VERIFICATION_KEY = { key: { apiKey: 'team-verification-key' } };
  it.each<[string, Partial<VerifyRequest>, 'controller' | 'namespace', string, boolean]>([
    ["the controller's key, a platform-assigned URL on the list: sent", {}, 'controller', 'key-1', false],
    [
      "the controller's key, a customUrl on an allowed host: not sent, said",
      { urlChosenBy: 'namespace' },
      'controller',
      '-',
      true,
    ],
    [
      "the namespace's control-plane key, a customUrl: not sent, said",
      { urlChosenBy: 'namespace' },
      'namespace',
      '-',
      true,
    ],
    [
      "a customUrl with the namespace's verification key: that key",
      { urlChosenBy: 'namespace', verificationKey: VERIFICATION_KEY },
      'controller',
      'team-verification-key',
      false,
    ],
    [
      "a platform-assigned URL with the namespace's verification key: that key",
      { verificationKey: VERIFICATION_KEY },
      'controller',
      'team-verification-key',
      false,
    ],
  ])('%s', async (_case, more, owner, key, saysKeyless) => {
    seen.length = 0;
    keys.length = 0;
    // Loopback is allowed here so a call without the controller's key reaches the server and shows what it carried.
    const result = await verifierFor('127.0.0.0/8').step(requestFor(allowedUrl, owner, more));
    expect(seen).toEqual(['allowed /ok']);
    expect(keys).toEqual([key]);
    expect(result.view.verified.message.includes('no key was sent')).toBe(saysKeyless);
    expect(result.view.outcome.message.includes('spec.verification.credentialsSecretRef')).toBe(saysKeyless);
  });

  it('a customUrl without a key goes through the address rules all the same: loopback refused', async () => {
    seen.length = 0;
    const result = await verifierFor().step(
      requestFor(allowedUrl, 'controller', { urlChosenBy: 'namespace' }),
    );
    expect(result.view.outcome).toMatchObject({ kind: 'stalled', reason: 'URLNotAllowed' });
    expect(result.view.verified.message).toContain('no key was sent');
    expect(seen).toEqual([]);
  });

  it.each<[string, VerifyRequest['verificationKey'], string]>([
    [
      'missing',
      { reason: 'WaitingForCredentials', problem: 'verification credentials Secret v not found' },
      'WaitingForCredentials',
    ],
    [
      'without a key',
      { reason: 'InvalidCredentials', problem: 'either apiKey or bearerToken is required' },
      'InvalidCredentials',
    ],
  ])('the verification Secret %s: no request, Verified Unknown saying why', async (_case, read, reason) => {
    seen.length = 0;
    const result = await verifierFor('127.0.0.0/8').step(
      requestFor(allowedUrl, 'controller', { urlChosenBy: 'namespace', verificationKey: read }),
    );
    expect(result.view.outcome).toMatchObject({ kind: 'waiting', reason });
    expect(result.view.verified).toMatchObject({ status: 'Unknown', reason });
    expect(result.view.verified.message).toContain('no request was made');
    expect(seen).toEqual([]);
  });
});
