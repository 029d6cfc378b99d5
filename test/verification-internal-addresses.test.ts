/**
 * Verification with a namespace's own key (spec.verification.credentialsSecretRef) against internal
 * addresses, end to end: the real API
 * server, the operator in-process at its defaults (no internal address allowed), the simulator as the
 * control plane, and an "internal service" on loopback that counts what reaches it. A namespace user
 * points customUrl at it, at the cloud metadata address, or hides the path behind a `#`: no request
 * leaves, and the object says why.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../src/simulator/index.ts';
import { externalImage } from './support/agd-objects.ts';
import {
  condition,
  createAgd,
  eventually,
  getAgd,
  type Harness,
  putSecret,
  sleep,
  startHarness,
} from './support/harness.ts';

const TEAM_KEY = 'team-api-key-internal-9d2b';

let h: Harness;
let internal: Server;
let internalUrl: string;
const seen: string[] = [];

beforeAll(async () => {
  internal = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"secret":"internal-only"}');
  });
  await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
  internalUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
  h = await startHarness('verify-internal', { simulator: { apiKeys: [DEFAULT_API_KEY, TEAM_KEY] } });
  await putSecret(h, 'team-creds', { apiKey: TEAM_KEY });
});

afterAll(async () => {
  await h?.stop();
  await new Promise<void>((r) => internal.close(() => r()));
});

const ownCredentials = (name: string, customUrl: string) =>
  externalImage(
    name,
    {
      credentialsSecretRef: { name: 'team-creds' },
      verification: {
        assistantId: 'agent',
        webhook: false,
        credentialsSecretRef: { name: 'team-creds' },
      },
    },
    { customUrl },
  );

const stalledURLNotAllowed = (name: string) =>
  eventually(
    async () => {
      const o = await getAgd(h, name);
      return condition(o, 'Stalled')?.reason === 'URLNotAllowed' ? o : undefined;
    },
    `${name} Stalled URLNotAllowed`,
    60_000,
  );

it.each<[string, () => string, string]>([
  ['a loopback service', () => `${internalUrl}/agent`, 'is loopback'],
  ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data', 'is link-local'],
  ['a loopback service behind a fragment', () => `${internalUrl}/admin/delete-all#`, 'must not have a query'],
])('%s gets no request: Stalled URLNotAllowed, naming why', async (_case, url, why) => {
  const name = `internal-${Math.random().toString(36).slice(2, 8)}`;
  seen.length = 0;
  await createAgd(h, ownCredentials(name, url()));
  const obj = await stalledURLNotAllowed(name);
  const message = condition(obj, 'Stalled')?.message ?? '';
  expect(message).toContain(why);
  expect(message).toMatch(/--agent-server-allowed-internal-addresses|spec\.sourceConfig\.customUrl/);
  expect(condition(obj, 'Ready')?.status).toBe('False');
  expect(JSON.stringify(obj.status)).not.toContain('internal-only');
  // A few more passes (the poll interval is 1 s): still nothing reached it.
  await sleep(2_000);
  expect(seen).toEqual([]);
});
