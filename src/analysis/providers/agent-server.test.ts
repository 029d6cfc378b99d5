import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addressGuardedAgent } from '../../verification/guarded-agent.ts';
import { parseHostAllowList } from '../../verification/host-allow-list.ts';
import { internalAddressPolicy } from '../../verification/internal-addresses.ts';
import {
  type AgentServerContext,
  type AgentServerTarget,
  measureAgentServer,
  percentile,
} from './agent-server.ts';
import { analysisUrlPolicy } from './allowed-urls.ts';
import { json, type TestServer, testServer } from './test-server.test-support.ts';

const FIELD = 'spec.analysis.metrics[0].agentServer';

/** How the fake agent server ends each run, in creation order; 'hang' never ends within the test. */
let script: ('success' | 'error' | 'hang')[] = [];
let threadsRefused = false;

function agentServer(req: IncomingMessage, res: ServerResponse) {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (req.method === 'POST' && path === '/threads') {
    if (threadsRefused) return json(res, { detail: 'overloaded' }, 503);
    return json(res, { thread_id: `t${Math.random().toString(36).slice(2, 10)}` });
  }
  const run = /^\/threads\/([^/]+)\/runs(?:\/([^/]+))?(\/join)?$/.exec(path);
  if (!run) return json(res, {}, 404);
  const [, thread, runId, join] = run;
  if (req.method === 'POST') {
    const n = created++;
    return json(res, { run_id: `r${n}`, thread_id: thread, status: 'pending' });
  }
  const end = script[Number(runId?.slice(1))] ?? 'success';
  if (join) {
    if (end === 'hang') return; // the client's deadline ends it
    return json(res, {});
  }
  return json(res, { run_id: runId, thread_id: thread, status: end === 'hang' ? 'running' : end });
}
let created = 0;

let server: TestServer;
beforeAll(async () => {
  server = await testServer(agentServer);
});
afterAll(() => server.close());
beforeEach(() => {
  script = [];
  threadsRefused = false;
  created = 0;
});

const target = (over: Partial<AgentServerTarget> = {}): AgentServerTarget => ({
  namespace: 'team-a',
  name: 'agent',
  url: server.url,
  urlChosenBy: 'namespace',
  credentials: { baseUrl: 'https://cp.example.com', apiKey: 'controller-key' },
  credentialsOwner: 'controller',
  ...over,
});

const context = (over: Partial<AgentServerContext> = {}): AgentServerContext => ({
  analysisUrls: analysisUrlPolicy(server.url),
  allowedHosts: parseHostAllowList('cp.example.com'),
  guardedDispatcher: addressGuardedAgent(internalAddressPolicy('127.0.0.1'), {
    connections: 4,
    keepAliveTimeout: 1_000,
    connectTimeout: 1_000,
  }),
  ...over,
});

describe('measureAgentServer', () => {
  it('answers the success rate and the latencies over the runs', async () => {
    script = ['success', 'error', 'success', 'success'];
    const result = await measureAgentServer({ assistantId: 'agent', runs: 4 }, FIELD, target(), context());
    if (!('value' in result)) throw new Error(result.error);
    const value = result.value as { successRate: number; p50Ms: number; p95Ms: number };
    expect(value.successRate).toBe(0.75);
    expect(value.p50Ms).toBeGreaterThanOrEqual(0);
    expect(value.p95Ms).toBeGreaterThanOrEqual(value.p50Ms);
    expect(created).toBe(4);
  });

  it('counts a run that does not end by the deadline as unsuccessful', async () => {
    script = ['hang', 'success'];
    const result = await measureAgentServer(
      { assistantId: 'agent', runs: 2 },
      FIELD,
      target(),
      context({ deadlineMs: 300 }),
    );
    expect('value' in result && (result.value as { successRate: number }).successRate).toBe(0.5);
  });

  it('errs when no run could be created', async () => {
    threadsRefused = true;
    const result = await measureAgentServer({ assistantId: 'agent', runs: 2 }, FIELD, target(), context());
    expect('error' in result && result.error).toContain(
      `${FIELD}: no run could be created: POST /threads answered 503`,
    );
  });

  it('sends no control-plane key to a URL the namespace chose', async () => {
    await measureAgentServer({ assistantId: 'agent', runs: 1 }, FIELD, target(), context());
    for (const r of server.requests) {
      expect(r.headers['x-api-key']).toBeUndefined();
      expect(r.headers.authorization).toBeUndefined();
    }
  });

  it('refuses a URL the namespace chose off the analysis list, naming the setting', async () => {
    const before = server.requests.length;
    const result = await measureAgentServer(
      { assistantId: 'agent' },
      FIELD,
      target(),
      context({ analysisUrls: analysisUrlPolicy('https://agents.example.com') }),
    );
    expect('error' in result && result.error).toContain('--analysis-allowed-urls (ANALYSIS_ALLOWED_URLS)');
    expect(server.requests.length).toBe(before);
  });

  it("refuses the controller's key to a host off the agent-server list", async () => {
    const result = await measureAgentServer(
      { assistantId: 'agent' },
      FIELD,
      target({ urlChosenBy: 'platform' }),
      context(),
    );
    expect('error' in result && result.error).toContain('--agent-server-allowed-hosts');
  });

  it('refuses an internal address the verification policy does not allow, sending nothing', async () => {
    const before = server.requests.length;
    const result = await measureAgentServer(
      { assistantId: 'agent' },
      FIELD,
      target(),
      context({
        guardedDispatcher: addressGuardedAgent(internalAddressPolicy(), {
          connections: 1,
          keepAliveTimeout: 1_000,
          connectTimeout: 1_000,
        }),
      }),
    );
    expect('error' in result && result.error).toContain('is loopback');
    expect(server.requests.length).toBe(before);
  });

  it('errs without a URL', async () => {
    const result = await measureAgentServer(
      { assistantId: 'agent' },
      FIELD,
      target({ url: undefined }),
      context(),
    );
    expect('error' in result && result.error).toContain('no URL to measure');
  });
});

describe('percentile (nearest rank)', () => {
  it.each([
    [[10], 0.5, 10],
    [[10, 20], 0.5, 10],
    [[10, 20, 30, 40], 0.5, 20],
    [[10, 20, 30, 40], 0.95, 40],
    [Array.from({ length: 100 }, (_, i) => i + 1), 0.95, 95],
    [[], 0.5, 0],
  ])('%j at %d: %d', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });
});
