/**
 * The real Prometheus server the analysis tests query (test/support/prometheus.ts), built from the Go
 * module proxy at promtool's module version (scripts/prometheus-binary.sh): it scrapes a target this
 * test serves, and an instant query through its HTTP API (/api/v1/query, plain undici) sees the value.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_BUILD_TIMEOUT_MS, goTool } from './support/go-tools.ts';
import {
  exposition,
  type MetricsTarget,
  type PrometheusServer,
  startMetricsTarget,
  startPrometheus,
} from './support/prometheus.ts';

const DEPLOYMENT_ID = '4f9a6c1e-8b2d-4e3f-9a7c-1d2e3f4a5b6c';

let target: MetricsTarget;
let prometheus: PrometheusServer;

beforeAll(async () => {
  const binary = await goTool('prometheus-binary.sh');
  target = await startMetricsTarget(
    exposition('agent_requests_total', [
      { labels: { deployment_id: DEPLOYMENT_ID, code: '200' }, value: 41 },
      { labels: { deployment_id: DEPLOYMENT_ID, code: '500' }, value: 1 },
    ]),
  );
  prometheus = await startPrometheus(binary, { targets: [target.address] });
}, FIRST_BUILD_TIMEOUT_MS);

afterAll(async () => {
  await prometheus?.stop();
  await target?.close();
});

interface QueryAnswer {
  status: string;
  data: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> };
}

async function instantQuery(query: string): Promise<{ status: number; body: QueryAnswer }> {
  const url = new URL('/api/v1/query', prometheus.url);
  url.searchParams.set('query', query);
  const answer = await request(url, { method: 'GET' });
  return { status: answer.statusCode, body: (await answer.body.json()) as QueryAnswer };
}

describe('a Prometheus server scraping a target the test serves', () => {
  it('answers an instant query with the served value', async () => {
    const answer = await instantQuery(`sum(agent_requests_total{deployment_id="${DEPLOYMENT_ID}"})`);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('success');
    expect(answer.body.data.resultType).toBe('vector');
    expect(answer.body.data.result.map((r) => r.value[1])).toStrictEqual(['42']);
  });

  it('keeps the labels the target served, the job and the instance', async () => {
    const answer = await instantQuery(`agent_requests_total{code="500"}`);
    expect(answer.body.data.result.map((r) => r.metric)).toStrictEqual([
      {
        __name__: 'agent_requests_total',
        code: '500',
        deployment_id: DEPLOYMENT_ID,
        instance: target.address,
        job: prometheus.job,
      },
    ]);
  });

  it('sees a newly served value after the next scrape', async () => {
    target.serve(
      exposition('agent_requests_total', [
        { labels: { deployment_id: DEPLOYMENT_ID, code: '200' }, value: 99 },
      ]),
    );
    await expect
      .poll(
        async () => (await instantQuery(`agent_requests_total{code="200"}`)).body.data.result[0]?.value[1],
        {
          timeout: 30_000,
          interval: 250,
        },
      )
      .toBe('99');
  });
});
