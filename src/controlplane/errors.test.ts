import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  ControlPlaneError,
  errorFromResponse,
  MalformedResponseError,
  NotFoundError,
  parseRetryAfter,
  RateLimitedError,
  redact,
  UnauthorizedError,
  UnavailableError,
  UnexpectedStatusError,
  ValidationFailedError,
} from './errors.ts';

const NOW = Date.parse('2030-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
  it.each<[string, string | string[] | undefined, number | undefined]>([
    ['delay-seconds', '7', 7_000],
    ['zero seconds', '0', 0],
    ['seconds with spaces', ' 3 ', 3_000],
    ['first of repeated headers', ['2', '9'], 2_000],
    ['HTTP date in the future', 'Tue, 01 Jan 2030 00:00:30 GMT', 30_000],
    ['HTTP date in the past', 'Mon, 31 Dec 2029 23:59:00 GMT', 0],
    ['absent', undefined, undefined],
    ['empty', '', undefined],
    ['negative', '-5', undefined],
    ['fraction', '1.5', undefined],
    ['garbage', 'soon', undefined],
    ['a day is capped at an hour', '86400', 3_600_000],
    ['a huge number is capped, never a timer overflow', '99999999999999999999', 3_600_000],
    ['a date years ahead is capped', 'Sat, 01 Jan 2050 00:00:00 GMT', 3_600_000],
  ])('%s', (_name, value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});

describe('errorFromResponse', () => {
  const detail = (text: string) => JSON.stringify({ detail: text });

  it.each<[number, string, new (...args: never[]) => ControlPlaneError, boolean]>([
    [400, detail('immutable'), BadRequestError, false],
    [401, detail('bad key'), UnauthorizedError, false],
    [403, detail('forbidden'), UnauthorizedError, false],
    [404, detail('Deployment x not found'), NotFoundError, false],
    [409, detail('busy'), ConflictError, false],
    [422, JSON.stringify({ detail: [] }), ValidationFailedError, false],
    [429, '', RateLimitedError, true],
    [500, 'oops', UnavailableError, true],
    [503, detail('maintenance'), UnavailableError, true],
    [408, '', UnavailableError, true],
    [418, '', UnexpectedStatusError, false],
  ])('%i becomes the right class', (status, bodyText, cls, retryable) => {
    const err = errorFromResponse({ operation: 'op', status, headers: {}, bodyText, secrets: [], now: NOW });
    expect(err).toBeInstanceOf(cls);
    expect(err).toBeInstanceOf(ControlPlaneError);
    expect(err.status).toBe(status);
    expect(err.operation).toBe('op');
    expect(err.retryable).toBe(retryable);
  });

  it('lists every 422 issue as loc: msg', () => {
    const body = {
      detail: [
        { loc: ['body', 'source_config', 'resource_spec', 'cpu'], msg: 'Input should be <= 8', type: 'x' },
        { loc: ['query', 'limit'], msg: 'Input should be >= 1', type: 'y' },
      ],
    };
    const err = errorFromResponse({
      operation: 'patchDeployment',
      status: 422,
      headers: {},
      bodyText: JSON.stringify(body),
      secrets: [],
    });
    expect(err).toBeInstanceOf(ValidationFailedError);
    expect((err as ValidationFailedError).issues).toHaveLength(2);
    expect(err.message).toContain('body.source_config.resource_spec.cpu: Input should be <= 8');
    expect(err.message).toContain('query.limit: Input should be >= 1');
  });

  it('keeps the detail of a 400 and strips secret values from it', () => {
    const err = errorFromResponse({
      operation: 'createDeployment',
      status: 400,
      headers: {},
      bodyText: detail('value s3cr3t-value is not allowed'),
      secrets: ['s3cr3t-value'],
    });
    expect((err as BadRequestError).detail).toBe('value [redacted] is not allowed');
    expect(err.message).not.toContain('s3cr3t-value');
  });

  it.each([
    [429, RateLimitedError],
    [503, UnavailableError],
  ])('%i carries Retry-After', (status, cls) => {
    const err = errorFromResponse({
      operation: 'getDeployment',
      status,
      headers: { 'retry-after': '12' },
      bodyText: '',
      secrets: [],
    });
    expect(err).toBeInstanceOf(cls);
    expect((err as RateLimitedError | UnavailableError).retryAfterMs).toBe(12_000);
  });

  it('never quotes a body it cannot parse', () => {
    const err = errorFromResponse({
      operation: 'getDeployment',
      status: 502,
      headers: {},
      bodyText: '<html>token=abcdef</html>',
      secrets: [],
    });
    expect(err.message).not.toContain('abcdef');
  });
});

describe('MalformedResponseError', () => {
  it('names the failing paths', () => {
    const err = new MalformedResponseError('getDeployment', 200, 'bad shape', [
      { path: 'id', code: 'invalid_type' },
      { path: 'source_config.resource_spec', code: 'invalid_type' },
    ]);
    expect(err.message).toContain('id (invalid_type)');
    expect(err.message).toContain('source_config.resource_spec (invalid_type)');
    expect(err.retryable).toBe(false);
    expect(err.name).toBe('MalformedResponseError');
  });
});

describe('redact', () => {
  it.each([
    ['removes every occurrence', 'a key-1234 b key-1234', ['key-1234'], 'a [redacted] b [redacted]'],
    ['leaves very short values alone', 'abc', ['ab'], 'abc'],
    ['bounds the length', 'x'.repeat(600), [], `${'x'.repeat(499)}…`],
    ['drops control characters and escapes', 'a\u001b[31mb\nc', [], 'a [31mb c'],
  ])('%s', (_name, text, secrets, expected) => {
    expect(redact(text, secrets)).toBe(expected);
  });
});
