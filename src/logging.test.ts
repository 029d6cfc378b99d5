import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logging.ts';

describe('createLogger', () => {
  const capture = () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    return { lines, logger: createLogger('info', stream) };
  };

  it.each<[string, Record<string, unknown>]>([
    ['an API key', { apiKey: 'secret-1' }],
    ['a nested bearer token', { credentials: { bearerToken: 'secret-1' } }],
    ['secret values in a request', { request: { secrets: [{ name: 'A', value: 'secret-1' }] } }],
    ['auth headers', { headers: { authorization: 'Bearer secret-1', 'x-api-key': 'secret-1' } }],
    ['a Kubernetes Secret', { secret: { data: { token: 'secret-1' } } }],
  ])('redacts %s', (_name, fields) => {
    const { lines, logger } = capture();
    logger.info(fields, 'message');
    expect(lines.join('')).not.toContain('secret-1');
    expect(lines.join('')).toContain('[redacted]');
  });
});
