import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DetailError } from '../controlplane/schemas.ts';
import { type Simulator, startSimulator } from './index.ts';
import { call } from './test-support.ts';

const TENANT = '6c1f0e8a-4b2d-4e3f-9a1b-2c3d4e5f6a7b';
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ apiKeys: ['key-1'], bearerTokens: ['token-1'], tenantId: TENANT });
});
afterAll(async () => {
  await sim.close();
});

const ROUTES = [
  '/v2/deployments',
  '/v2/deployments/00000000-0000-4000-8000-000000000000',
  '/v2/deployments/00000000-0000-4000-8000-000000000000/revisions',
  '/v2/sandboxes/templates',
  '/v2/listeners',
  '/v1/integrations/github/install',
];

const CASES: Array<[string, Record<string, string>, number]> = [
  ['no credentials', {}, 401],
  ['valid API key', { 'X-Api-Key': 'key-1' }, 200],
  ['invalid API key', { 'X-Api-Key': 'wrong' }, 403],
  ['API key with the right tenant', { 'X-Api-Key': 'key-1', 'X-Tenant-Id': TENANT }, 200],
  ['API key with another tenant', { 'X-Api-Key': 'key-1', 'X-Tenant-Id': 'other' }, 403],
  ['bearer with tenant', { Authorization: 'Bearer token-1', 'X-Tenant-Id': TENANT }, 200],
  ['bearer with organization', { Authorization: 'Bearer token-1', 'X-Organization-Id': 'org-1' }, 200],
  ['bearer alone', { Authorization: 'Bearer token-1' }, 401],
  ['invalid bearer', { Authorization: 'Bearer nope', 'X-Tenant-Id': TENANT }, 403],
  ['bearer with another tenant', { Authorization: 'Bearer token-1', 'X-Tenant-Id': 'other' }, 403],
  ['basic auth', { Authorization: 'Basic a2V5LTE6' }, 401],
];

describe.each(ROUTES)('auth on %s', (path) => {
  it.each(CASES)('%s -> %d', async (_name, headers, expected) => {
    const answer = await call(sim, 'GET', path, { auth: false, headers });
    // 404 for the unknown deployment means authentication passed.
    const status = answer.status === 404 ? 200 : answer.status;
    expect(status).toBe(expected);
    if (expected !== 200) expect(DetailError.safeParse(answer.body).success).toBe(true);
  });
});

it('auth is checked before validation', async () => {
  const answer = await call(sim, 'POST', '/v2/deployments', { auth: false, body: { nonsense: true } });
  expect(answer.status).toBe(401);
});

it('no detail ever repeats the credential', async () => {
  const answer = await call(sim, 'GET', '/v2/listeners', {
    auth: false,
    headers: { 'X-Api-Key': 'leaky-key' },
  });
  expect(JSON.stringify(answer.body)).not.toContain('leaky-key');
});
