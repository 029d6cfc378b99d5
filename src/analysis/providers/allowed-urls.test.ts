import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANALYSIS_ALLOWED_URLS_SETTING,
  AnalysisUrlListError,
  analysisDispatcher,
  analysisUrlPolicy,
} from './allowed-urls.ts';
import { getJson } from './http-get.ts';
import { json, type TestServer, testServer } from './test-server.test-support.ts';

describe('analysisUrlPolicy: which URLs a provider may call', () => {
  const cases: [string, string, string, string | undefined][] = [
    [
      'no list refuses every URL, naming the setting',
      '',
      'https://m.example.com/x',
      ANALYSIS_ALLOWED_URLS_SETTING,
    ],
    ['under a prefix', 'https://m.example.com/api', 'https://m.example.com/api/v1?q=1', undefined],
    ['the prefix itself', 'https://m.example.com/api', 'https://m.example.com/api', undefined],
    ['a sibling path', 'https://m.example.com/api', 'https://m.example.com/apiary', 'not under a URL prefix'],
    ['another host', 'https://m.example.com', 'https://m.example.com.evil.test/', 'not under a URL prefix'],
    ['another scheme', 'https://m.example.com', 'http://m.example.com/', 'not under a URL prefix'],
    ['another port', 'https://m.example.com', 'https://m.example.com:8443/', 'not under a URL prefix'],
    [
      'dot segments climbing out',
      'https://m.example.com/api',
      'https://m.example.com/api/../admin',
      'not under',
    ],
    ['an encoded separator', 'https://m.example.com/api', 'https://m.example.com/api/..%2fadmin', 'encoded'],
    ['credentials in the URL', 'https://m.example.com', 'https://u:p@m.example.com/', 'user or password'],
    ['not a URL', 'https://m.example.com', 'm.example.com/x', 'not an absolute URL'],
  ];
  it.each(cases)('%s', (_what, listed, url, refusal) => {
    const why = analysisUrlPolicy(listed).refusal(url);
    if (refusal === undefined) expect(why).toBeUndefined();
    else expect(why).toContain(refusal);
  });

  it.each([
    ['m.example.com', 'absolute URL'],
    ['ftp://m.example.com', 'https or http'],
    ['https://m.example.com/?q', 'query or fragment'],
    ['https://u:p@m.example.com', 'user or password'],
  ])('refuses the entry %s', (entry, rule) => {
    expect(() => analysisUrlPolicy(entry)).toThrow(AnalysisUrlListError);
    expect(() => analysisUrlPolicy(entry)).toThrow(rule);
  });

  it.each([
    ['http://10.0.3.4:9090', '10.0.3.4', undefined],
    ['http://[fd00::5]:9090', 'fd00::5', undefined],
    ['https://metrics.example.com', '10.0.3.4', 'private'],
    ['https://metrics.example.com', '127.0.0.1', 'loopback'],
    ['https://metrics.example.com', '169.254.169.254', 'link-local'],
  ])('an entry %s reaches %s: %s', (entry, address, refusal) => {
    expect(analysisUrlPolicy(entry).internal.refusalOf(address)).toBe(refusal);
  });

  it.each([
    ['http://prometheus.monitoring.svc:9090', 'prometheus.monitoring.svc', true],
    ['http://prometheus.monitoring.svc.cluster.local', 'prometheus.monitoring.svc.cluster.local', true],
    ['http://prometheus:9090', 'prometheus', true],
    ['http://localhost:9090', 'localhost', true],
    ['https://metrics.example.com', 'metrics.example.com', false],
  ])('an entry %s names the internal host %s: %s', (entry, host, named) => {
    expect(analysisUrlPolicy(entry).internal.allowsHost(host)).toBe(named);
  });
});

describe('the connections a provider uses', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await testServer((_req, res) => json(res, { ok: true }));
  });
  afterAll(() => server.close());

  const resolveTo =
    (address: string) =>
    (
      _host: string,
      _options: unknown,
      callback: (err: null, a: { address: string; family: number }[]) => void,
    ) =>
      callback(null, [{ address, family: 4 }]);

  it('reach a loopback address an entry names', async () => {
    const policy = analysisUrlPolicy(server.url);
    const answer = await getJson(`${server.url}/x`, {}, { policy, dispatcher: analysisDispatcher(policy) });
    expect(answer).toEqual({ json: { ok: true } });
  });

  it('refuse a public name that resolves to loopback, sending nothing', async () => {
    const port = new URL(server.url).port;
    const policy = analysisUrlPolicy(`http://metrics.example.com:${port}`);
    const before = server.requests.length;
    const answer = await getJson(
      `http://metrics.example.com:${port}/x`,
      {},
      {
        policy,
        dispatcher: analysisDispatcher(policy, resolveTo('127.0.0.1') as never),
      },
    );
    expect(answer).toEqual({
      error: `GET http://metrics.example.com:${port}/x failed: its address (metrics.example.com, which resolves to 127.0.0.1) is loopback, and ${ANALYSIS_ALLOWED_URLS_SETTING} does not name that host; no request was made`,
    });
    expect(server.requests.length).toBe(before);
  });

  it('refuse a URL off the list, sending nothing', async () => {
    const policy = analysisUrlPolicy('https://metrics.example.com');
    const before = server.requests.length;
    const answer = await getJson(`${server.url}/x`, {}, { policy, dispatcher: analysisDispatcher(policy) });
    expect('error' in answer && answer.error).toContain(ANALYSIS_ALLOWED_URLS_SETTING);
    expect(server.requests.length).toBe(before);
  });
});
