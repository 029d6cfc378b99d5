import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisMetric } from '../../api/analysis.ts';
import { parseHostAllowList } from '../../verification/host-allow-list.ts';
import { analysisDispatcher, analysisUrlPolicy } from './allowed-urls.ts';
import { type MeasureEnv, measureMetric } from './measure.ts';
import { NamespaceRate } from './namespace-rate.ts';
import { json, type TestServer, testServer } from './test-server.test-support.ts';

let server: TestServer;
beforeAll(async () => {
  server = await testServer((req, res) =>
    req.url?.startsWith('/api/v1/query')
      ? json(res, { status: 'success', data: { resultType: 'scalar', result: [0, '7'] } })
      : json(res, { rate: 0.5 }),
  );
});
afterAll(() => server.close());

function env(namespace: string, rate: NamespaceRate): MeasureEnv {
  const policy = analysisUrlPolicy(server.url);
  const dispatcher = analysisDispatcher(policy);
  return {
    namespace,
    rate,
    nowMs: 0,
    http: { policy, dispatcher },
    readSecret: async () => undefined,
    vars: { deploymentId: 'd', revisionId: 'r' },
    agentServer: {
      target: {
        namespace,
        name: 'a',
        url: server.url,
        urlChosenBy: 'namespace',
        credentials: { baseUrl: 'https://cp.example.com', apiKey: 'k' },
        credentialsOwner: 'controller',
      },
      context: { analysisUrls: policy, allowedHosts: parseHostAllowList(''), guardedDispatcher: dispatcher },
    },
  };
}

const web: AnalysisMetric = {
  name: 'w',
  web: { url: '', jsonPath: '{$.rate}' },
  successCondition: 'result < 1.0',
};

describe('measureMetric', () => {
  it("measures with the metric's provider", async () => {
    const rate = new NamespaceRate(60, 10);
    const w = { ...web, web: { url: `${server.url}/rate`, jsonPath: '{$.rate}' } };
    expect(await measureMetric(w, 0, env('a', rate))).toEqual({ value: 0.5 });
    const p = {
      name: 'p',
      prometheus: { address: server.url, query: 'up' },
      successCondition: 'result > 1.0',
    };
    expect(await measureMetric(p, 1, env('a', rate))).toEqual({ value: 7 });
  });

  it("past the namespace's rate bound, measures nothing and says when to come back", async () => {
    const rate = new NamespaceRate(60, 2);
    const w = { ...web, web: { url: `${server.url}/rate`, jsonPath: '{$.rate}' } };
    await measureMetric(w, 0, env('hostile', rate));
    await measureMetric(w, 0, env('hostile', rate));
    const before = server.requests.length;
    expect(await measureMetric(w, 0, env('hostile', rate))).toEqual({ throttledForMs: 1000 });
    expect(server.requests.length).toBe(before);
    expect(await measureMetric(w, 0, env('quiet', rate))).toEqual({ value: 0.5 });
  });

  it('charges an agentServer measurement one token per run', async () => {
    const rate = new NamespaceRate(60, 3);
    const a = { name: 'a', agentServer: { assistantId: 'x', runs: 3 }, successCondition: 'true' };
    await measureMetric(a, 0, env('runs', rate));
    expect(rate.take('runs', 0)).toEqual({ allowed: false, retryAfterMs: 1000 });
  });
});
