/**
 * Analysis of each new revision end to end (spec.analysis): the real API server, the operator
 * in-process, the simulator's agent servers (a revision's agent that degrades after N runs), a JSON
 * endpoint this test serves (web) and a real Prometheus server scraping a target this test serves. A
 * degrading revision rolled back by its analysis; an inconclusive one paused until promoted; an abort; a
 * dry-run metric that never decides; a URL off the allow-list; a restart in the middle of an analysis
 * that repeats no measurement (the provider's requests counted).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { runVerb, VERBS } from '../src/cli/verbs.ts';
import { externalImage, repoHost } from './support/agd-objects.ts';
import { FIRST_BUILD_TIMEOUT_MS, goTool } from './support/go-tools.ts';
import {
  condition,
  createAgd,
  eventually,
  getAgd,
  type Harness,
  listEvents,
  mergePatchAgd,
  startHarness,
} from './support/harness.ts';
import { streamSpaces } from './support/hostile-server.ts';
import {
  exposition,
  type MetricsTarget,
  type PrometheusServer,
  startMetricsTarget,
  startPrometheus,
} from './support/prometheus.ts';

const GOOD = 'refs/tags/v1';
const BAD = 'refs/tags/degrades';
const at = (repoRef: string) => ({ sourceRevisionConfig: { repoRef, graphConfigPath: 'langgraph.json' } });

/** The JSON endpoint: each path answers {"rate": value}, and counts its requests. */
const RATES: Record<string, number> = { '/good': 0.01, '/unclear': 0.3, '/bad': 0.9, '/counted': 0.01 };
const requests = new Map<string, number>();
let web: Server;
let webUrl: string;
let target: MetricsTarget;
let prometheus: PrometheusServer;
let h: Harness;

beforeAll(async () => {
  web = createServer((req, res) => {
    const path = req.url ?? '';
    requests.set(path, (requests.get(path) ?? 0) + 1);
    // Hostile answers: an endless body, no answer at all, escapes in the text.
    if (path === '/endless')
      return streamSpaces(res.writeHead(200, { 'content-type': 'application/json' }), 100 * 1024 * 1024);
    if (path === '/silent') return;
    if (path === '/escapes')
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ rate: '\u001b[2J\u202egnp.ti' }));
    const rate = RATES[path];
    if (rate === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ rate }));
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  // Loopback named by its address: the allow-list's rule for an internal host (allowed-urls.ts).
  webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  target = await startMetricsTarget(
    exposition('agent_requests_total', [
      { labels: { code: '200' }, value: 99 },
      { labels: { code: '500' }, value: 1 },
    ]),
  );
  prometheus = await startPrometheus(await goTool('prometheus-binary.sh'), { targets: [target.address] });
  h = await startHarness('analysis', {
    env: { ANALYSIS_ALLOWED_URLS: `${webUrl}/,${prometheus.url}/` },
  });
  h.sim.configureRevisionAgent(BAD, { graph: { degradeAfterRuns: 1 } });
}, FIRST_BUILD_TIMEOUT_MS);

afterAll(async () => {
  await h?.stop();
  await prometheus?.stop();
  await target?.close();
  await new Promise((resolve) => web?.close(resolve));
});

const webMetric = (name: string, path: string, more: Record<string, unknown> = {}) => ({
  name,
  web: { url: `${webUrl}${path}`, jsonPath: '{$.rate}' },
  successCondition: 'result < 0.1',
  ...more,
});

async function until(
  name: string,
  check: (obj: AgentDeployment) => boolean,
  what: string,
  timeoutMs = 60_000,
) {
  return eventually(
    async () => {
      const obj = await getAgd(h, name);
      if (check(obj)) return obj;
      throw new Error(
        JSON.stringify({
          conditions: obj.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
          analysis: obj.status?.analysis,
        }),
      );
    },
    `${name}: ${what}`,
    timeoutMs,
  );
}

const current = (obj: AgentDeployment) => obj.status?.observedGeneration === obj.metadata.generation;
const phaseIs = (phase: string) => (obj: AgentDeployment) =>
  current(obj) && obj.status?.analysis?.phase === phase;
const conditionIs = (type: string, reason: string) => (obj: AgentDeployment) =>
  current(obj) && condition(obj, type)?.status === 'True' && condition(obj, type)?.reason === reason;
const reasons = async (name: string) => (await listEvents(h, name)).map((e) => e.reason);

/** `kubectl agd VERB NAME`, in-process, against the run's API server. */
async function agd(verb: string, name: string) {
  let stdout = '';
  let stderr = '';
  const named = VERBS.find((v) => v.name === verb);
  if (!named) throw new Error(`no verb ${verb}`);
  const code = await runVerb(named, {
    argv: [verb, name, '-n', h.ns, '--timeout', '60s'],
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    kubeAccess: () => h.access,
  });
  return { code, stdout, stderr };
}

describe('analysis of each new revision', () => {
  it('a revision that degrades after deploy is rolled back by its analysis (agentServer)', async () => {
    const analysis = {
      count: 1,
      metrics: [
        {
          name: 'success',
          agentServer: { assistantId: 'agent', runs: 3 },
          successCondition: 'result.successRate >= 0.9',
        },
      ],
    };
    await createAgd(
      h,
      repoHost('degrades', { ...at(GOOD), analysis, remediation: { strategy: 'Rollback' } }),
    );
    const good = await until('degrades', phaseIs('Successful'), 'the good revision analysed');
    expect(good.status?.lastGoodRevision).toBe(good.status?.latestRevisionId);

    await mergePatchAgd(h, 'degrades', { spec: at(BAD) });
    const rolled = await until('degrades', conditionIs('Stalled', 'RolledBack'), 'rolled back');
    const bad = rolled.status?.history?.find((e) => e.repoRef === BAD);
    expect(bad).toMatchObject({ outcome: 'RolledBack', analysis: 'Failed' });
    expect(rolled.status?.history?.[0]).toMatchObject({
      trigger: 'Rollback',
      redeployOf: good.status?.lastGoodRevision,
    });
    // The rollback's revision (a redeploy of the good one, not analysed while held) is the last good one.
    expect(rolled.status?.lastGoodRevision).toBe(rolled.status?.history?.[0]?.id);
    expect(await reasons('degrades')).toEqual(
      expect.arrayContaining(['AnalysisStarted', 'AnalysisSuccessful', 'AnalysisFailed', 'RollingBack']),
    );
  });

  it('an inconclusive analysis pauses (Paused, not Ready) until kubectl agd promote', async () => {
    const analysis = {
      count: 1,
      metrics: [webMetric('errors', '/unclear', { failureCondition: 'result > 0.5' })],
    };
    await createAgd(h, externalImage('unclear', { analysis }));
    const paused = await until('unclear', conditionIs('Paused', 'AnalysisInconclusive'), 'paused');
    expect(condition(paused, 'Ready')).toMatchObject({ status: 'False', reason: 'AnalysisInconclusive' });
    expect(paused.status?.lastGoodRevision).toBeUndefined();

    const promoted = await agd('promote', 'unclear');
    expect(promoted.stderr).toBe('');
    expect(promoted.code).toBe(0);
    expect(promoted.stdout).toMatch(/analysis of revision \S+: Successful: promoted by a person/);
    const ready = await until(
      'unclear',
      (o) => current(o) && condition(o, 'Ready')?.status === 'True',
      'Ready',
    );
    expect(ready.status?.lastGoodRevision).toBe(ready.status?.latestRevisionId);
    expect(condition(ready, 'Paused')).toBeUndefined();
    expect(await reasons('unclear')).toEqual(
      expect.arrayContaining(['AnalysisInconclusive', 'AnalysisPromoted']),
    );

    // Nothing left to promote: refused, said, exit 1.
    const again = await agd('promote', 'unclear');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/promote refused: .*already ended Successful/);
  });

  it('kubectl agd abort fails a running analysis now: spec.remediation None stalls it', async () => {
    const analysis = { count: 3, interval: '1m', metrics: [webMetric('errors', '/good')] };
    await createAgd(h, externalImage('aborted', { analysis }));
    await until('aborted', (o) => (o.status?.analysis?.metrics[0]?.measured ?? 0) >= 1, 'measured once');
    const aborted = await agd('abort', 'aborted');
    expect(aborted.code).toBe(0);
    const stalled = await until('aborted', conditionIs('Stalled', 'AnalysisFailed'), 'AnalysisFailed');
    expect(stalled.status?.analysis).toMatchObject({ phase: 'Failed', message: 'aborted by a person' });
    expect(condition(stalled, 'Stalled')?.message).toMatch(/spec\.remediation is None/);
    expect(await reasons('aborted')).toContain('AnalysisAborted');
  });

  it('a dry-run metric is measured and never decides; a URL off the allow-list errs naming the setting', async () => {
    const analysis = {
      count: 1,
      metrics: [
        webMetric('errors', '/good'),
        webMetric('strict', '/bad', { dryRun: true }),
        {
          ...webMetric('elsewhere', '/good', { dryRun: true }),
          web: { url: 'http://192.0.2.1/x', jsonPath: '{$.rate}' },
        },
      ],
    };
    await createAgd(h, externalImage('dry-run', { analysis }));
    const done = await until('dry-run', phaseIs('Successful'), 'Successful');
    const [errors, strict, elsewhere] = done.status?.analysis?.metrics ?? [];
    expect(errors).toMatchObject({ measured: 1, successful: 1 });
    expect(strict).toMatchObject({ dryRun: true, failed: 1 });
    expect(elsewhere).toMatchObject({ dryRun: true, error: 1 });
    expect(elsewhere?.measurements[0]?.message).toMatch(/--analysis-allowed-urls/);
    expect(done.status?.lastGoodRevision).toBe(done.status?.latestRevisionId);
  });

  it("a hostile provider costs its own object's analysis only: Error measurements, cleaned text", async () => {
    const analysis = {
      count: 1,
      metrics: [
        webMetric('endless', '/endless'),
        webMetric('silent', '/silent'),
        webMetric('escapes', '/escapes'),
      ],
    };
    await createAgd(h, externalImage('hostile', { analysis }));
    await createAgd(
      h,
      externalImage('bystander', { analysis: { count: 1, metrics: [webMetric('errors', '/good')] } }),
    );
    const bystander = await until('bystander', phaseIs('Successful'), 'the bystander Successful');
    expect(bystander.status?.lastGoodRevision).toBe(bystander.status?.latestRevisionId);
    const hostile = await until(
      'hostile',
      (o) => o.status?.analysis?.metrics.length === 3 && o.status.analysis.metrics.every((m) => m.error >= 1),
      'every hostile metric erred',
    );
    expect(hostile.status?.analysis?.phase).toBe('Running');
    const [endless, silent, escapes] = hostile.status?.analysis?.metrics ?? [];
    expect(endless?.measurements[0]?.message).toMatch(/GET \S+ failed/);
    expect(silent?.measurements[0]?.message).toMatch(/GET \S+ failed/);
    expect(escapes?.measurements[0]).toMatchObject({ outcome: 'Error' });
    const text = JSON.stringify(hostile.status?.analysis);
    for (const bad of ['\\u001b', '\u001b', '\u202e']) expect(text).not.toContain(bad);
  });

  it('a restart in the middle of an analysis goes on from status, repeating no measurement', async () => {
    const analysis = { count: 2, interval: '10s', metrics: [webMetric('errors', '/counted')] };
    await createAgd(h, externalImage('restarted', { analysis }));
    await until('restarted', (o) => (o.status?.analysis?.metrics[0]?.measured ?? 0) === 1, 'measured once');
    await h.operator.stop(1_000);
    await h.startOperator();
    const done = await until('restarted', phaseIs('Successful'), 'Successful after the restart');
    expect(done.status?.analysis?.metrics[0]).toMatchObject({ measured: 2, successful: 2 });
    expect(requests.get('/counted')).toBe(2);
  });

  it('the prometheus provider: an instant query against a real Prometheus server', async () => {
    const analysis = {
      count: 1,
      metrics: [
        {
          name: 'error-ratio',
          prometheus: {
            address: prometheus.url,
            query: 'sum(agent_requests_total{code="500"}) / sum(agent_requests_total)',
          },
          successCondition: 'result[0] < 0.05',
        },
      ],
    };
    await createAgd(h, externalImage('prometheus', { analysis }));
    const done = await until('prometheus', phaseIs('Successful'), 'Successful');
    expect(done.status?.analysis?.metrics[0]?.measurements[0]).toMatchObject({
      outcome: 'Successful',
      value: '[0.01]',
    });
  });
});
