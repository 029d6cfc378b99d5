import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebProvider } from '../../api/analysis.ts';
import { analysisDispatcher, analysisUrlPolicy } from './allowed-urls.ts';
import { json, type TestServer, testServer } from './test-server.test-support.ts';
import { measureWeb } from './web.ts';

const FIELD = 'spec.analysis.metrics[0].web';
let server: TestServer;
beforeAll(async () => {
  server = await testServer((req, res) => {
    switch (req.url) {
      case '/rate':
        return json(res, { errorRate: 0.02, data: [{ p95: 120 }] });
      case '/down':
        return json(res, { detail: 'internal secret 10.0.0.7' }, 503);
      case '/redirect':
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
        return res.end();
      case '/text':
        return res.end('<html>');
      case '/endless': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const write = () => {
          while (res.write(chunk)) if (res.destroyed) return;
          res.once('drain', write);
        };
        return write();
      }
      case '/slow':
        return setTimeout(() => json(res, { errorRate: 0 }), 5_000).unref();
      default:
        return json(res, {}, 404);
    }
  });
});
afterAll(() => server.close());

const secrets: Record<string, Record<string, string>> = {
  metrics: { token: 'Bearer tenant-token\n', bad: 'x\r\nX-Injected: 1' },
};
const readSecret = async (name: string, key: string) => secrets[name]?.[key];

function measure(
  web: Partial<WebProvider> & { path?: string },
  limits: { timeoutMs?: number; maxBodyBytes?: number } = {},
) {
  const policy = analysisUrlPolicy(server.url);
  const { path = '/rate', ...rest } = web;
  return measureWeb({ url: `${server.url}${path}`, jsonPath: '{$.errorRate}', ...rest }, FIELD, {
    policy,
    dispatcher: analysisDispatcher(policy),
    readSecret,
    ...limits,
  });
}

describe('measureWeb', () => {
  it('answers the value at jsonPath', async () => {
    expect(await measure({})).toEqual({ value: 0.02 });
    expect(await measure({ jsonPath: '{$.data[0].p95}' })).toEqual({ value: 120 });
  });

  it('sends no credentials of its own: only accept, and the headers the metric names', async () => {
    await measure({});
    const sent = server.requests.at(-1)?.headers ?? {};
    expect(sent.authorization).toBeUndefined();
    expect(sent.cookie).toBeUndefined();
    expect(sent.accept).toBe('application/json');
    await measure({
      headers: [
        { name: 'Authorization', valueFrom: { secretKeyRef: { name: 'metrics', key: 'token' } } },
        { name: 'X-Scope', value: 'team-a' },
      ],
    });
    const named = server.requests.at(-1)?.headers ?? {};
    expect(named.authorization).toBe('Bearer tenant-token');
    expect(named['x-scope']).toBe('team-a');
  });

  const errors: [string, Partial<WebProvider> & { path?: string }, string][] = [
    [
      'an answer with nothing at jsonPath',
      { jsonPath: '{$.missing}' },
      `${FIELD}.jsonPath {$.missing} selects nothing`,
    ],
    ['a jsonPath outside the subset', { jsonPath: '{$.data[*]}' }, `${FIELD}.jsonPath supports only`],
    ['an error answer, its body unquoted', { path: '/down' }, 'answered 503'],
    ['a redirect, not followed', { path: '/redirect' }, 'answered 302'],
    ['an answer that is not JSON', { path: '/text' }, 'a body that is not JSON'],
    [
      'a missing Secret',
      { headers: [{ name: 'X-Key', valueFrom: { secretKeyRef: { name: 'gone', key: 'k' } } }] },
      `${FIELD}.headers[0].valueFrom: key k of Secret gone not found`,
    ],
    [
      'a Secret value that would add a header',
      { headers: [{ name: 'X-Key', valueFrom: { secretKeyRef: { name: 'metrics', key: 'bad' } } }] },
      `${FIELD}.headers[0]: the value must be printable ASCII`,
    ],
    [
      'a Host header',
      { headers: [{ name: 'Host', value: 'admin.internal' }] },
      `${FIELD}.headers[0]: the Host header cannot be set`,
    ],
    [
      'a header set twice',
      {
        headers: [
          { name: 'X-A', value: '1' },
          { name: 'x-a', value: '2' },
        ],
      },
      `${FIELD}.headers[1]: x-a is set twice`,
    ],
  ];
  it.each(errors)('errs on %s', async (_what, web, message) => {
    const result = await measure(web);
    expect('error' in result && result.error).toContain(message);
    expect(JSON.stringify(result)).not.toContain('10.0.0.7');
    expect(JSON.stringify(result)).not.toContain('Injected');
  });

  it('abandons an endless body at the cap', async () => {
    const result = await measure({ path: '/endless' }, { maxBodyBytes: 256 * 1024 });
    expect('error' in result && result.error).toContain('larger than 262144 bytes');
  });

  it('abandons a slow answer at the deadline', async () => {
    const result = await measure({ path: '/slow' }, { timeoutMs: 200 });
    expect('error' in result && result.error).toContain('no complete answer within');
  });

  it('refuses a URL off the list, naming the setting, sending nothing', async () => {
    const before = server.requests.length;
    const policy = analysisUrlPolicy('https://metrics.example.com');
    const result = await measureWeb({ url: `${server.url}/rate`, jsonPath: '{$.errorRate}' }, FIELD, {
      policy,
      dispatcher: analysisDispatcher(policy),
      readSecret,
    });
    expect('error' in result && result.error).toContain('--analysis-allowed-urls (ANALYSIS_ALLOWED_URLS)');
    expect(server.requests.length).toBe(before);
  });
});
