import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analysisDispatcher, analysisUrlPolicy } from './allowed-urls.ts';
import { expandQuery, measurePrometheus, promqlString } from './prometheus.ts';
import { json, type TestServer, testServer } from './test-server.test-support.ts';

const FIELD = 'spec.analysis.metrics[1].prometheus';
const VARS = { deploymentId: 'dep-1', revisionId: 'rev-1' };

/** Answers by the query text: the test names what each query returns. */
const ANSWERS: Record<string, unknown> = {
  scalar: { status: 'success', data: { resultType: 'scalar', result: [1700000000, '0.25'] } },
  vector: {
    status: 'success',
    data: {
      resultType: 'vector',
      result: [
        { metric: { revision: 'rev-1' }, value: [1700000000, '1.5'] },
        { metric: {}, value: [1700000000, 'NaN'] },
        { metric: {}, value: [1700000000, '+Inf'] },
      ],
    },
  },
  empty: { status: 'success', data: { resultType: 'vector', result: [] } },
  matrix: { status: 'success', data: { resultType: 'matrix', result: [] } },
  string: { status: 'success', data: { resultType: 'string', result: [1700000000, 'x'] } },
  broken: { status: 'error', errorType: 'bad_data', error: 'parse error\u001b[31m at char 3' },
  shapeless: { rows: [] },
};

let server: TestServer;
beforeAll(async () => {
  server = await testServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/prom/api/v1/query') return json(res, {}, 404);
    const query = url.searchParams.get('query') ?? '';
    json(res, ANSWERS[query] ?? ANSWERS.scalar);
  });
});
afterAll(() => server.close());

function measure(query: string, vars = VARS) {
  const policy = analysisUrlPolicy(`${server.url}/prom`);
  return measurePrometheus({ address: `${server.url}/prom/`, query }, FIELD, vars, {
    policy,
    dispatcher: analysisDispatcher(policy),
  });
}

describe('measurePrometheus', () => {
  it.each([
    ['scalar', { value: 0.25 }],
    ['vector', { value: [1.5, Number.NaN, Number.POSITIVE_INFINITY] }],
    ['empty', { value: [] }],
  ])('answers a %s', async (query, result) => {
    expect(await measure(query)).toEqual(result);
  });

  it.each([
    ['matrix', `${FIELD}: the query answered a matrix; write one that answers a scalar or an instant vector`],
    ['string', `${FIELD}: the query answered a string`],
    ['broken', `${FIELD}: the query failed: bad_data: parse error [31m at char 3`],
    ['shapeless', `${FIELD}: the answer is not a Prometheus query result`],
  ])('errs on a %s answer', async (query, message) => {
    const result = await measure(query);
    expect('error' in result && result.error).toContain(message);
  });

  it('asks the instant-query endpoint below the address, the variables quoted', async () => {
    await measure('rate(errors{deployment={{deploymentId}}, revision={{ revisionId }}}[5m])');
    const sent = new URL(server.requests.at(-1)?.url ?? '', 'http://x');
    expect(sent.pathname).toBe('/prom/api/v1/query');
    expect(sent.searchParams.get('query')).toBe('rate(errors{deployment="dep-1", revision="rev-1"}[5m])');
    expect(server.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  it('refuses an address off the list, naming the setting', async () => {
    const policy = analysisUrlPolicy('https://prometheus.example.com');
    const result = await measurePrometheus({ address: server.url, query: 'up' }, FIELD, VARS, {
      policy,
      dispatcher: analysisDispatcher(policy),
    });
    expect('error' in result && result.error).toContain('--analysis-allowed-urls (ANALYSIS_ALLOWED_URLS)');
  });
});

describe('the query variables', () => {
  it.each([
    ['plain', 'rev-1', '"rev-1"'],
    ['a quote and a brace cannot end the string', 'x"} or vector(1) #', '"x\\"} or vector(1) #"'],
    ['a backslash', 'a\\"b', '"a\\\\\\"b"'],
    ['a line break', 'a\nb', '"a\\nb"'],
  ])('%s', (_what, value, literal) => {
    expect(promqlString(value)).toBe(literal);
    expect(expandQuery('up{r={{revisionId}}}', { deploymentId: 'd', revisionId: value })).toBe(
      `up{r=${literal}}`,
    );
  });

  it('leaves other braces alone', () => {
    expect(expandQuery('{{other}} {{deploymentId}}', VARS)).toBe('{{other}} "dep-1"');
  });
});
