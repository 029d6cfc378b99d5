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

  it('writes the level as a word', () => {
    const { lines, logger } = capture();
    logger.warn('careful');
    expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 'warn', msg: 'careful' });
  });

  it.each<[string, (l: ReturnType<typeof capture>['logger']) => void]>([
    ['the root logger', (l) => l.info({ name: 'a' }, 'm')],
    ['a component child', (l) => l.child({ component: 'observer' }).info('m')],
    ['a component child with fields', (l) => l.child({ component: 'events' }).info({ reason: 'r' }, 'm')],
  ])('gives every key of %s once (strict JSON parsers refuse duplicates)', (_name, write) => {
    const { lines, logger } = capture();
    write(logger);
    expect(lines).toHaveLength(1);
    expect(duplicateKeys(lines[0] as string)).toEqual([]);
  });
});

/** Keys that occur twice in one object of a JSON text (JSON.parse silently keeps the last). */
function duplicateKeys(text: string): string[] {
  const duplicates: string[] = [];
  const scopes: Set<string>[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '{') scopes.push(new Set());
    else if (c === '}') scopes.pop();
    else if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const key = text.slice(i + 1, end);
      i = end;
      let next = end + 1;
      while (text[next] === ' ') next += 1;
      const scope = scopes.at(-1);
      if (text[next] === ':' && scope) {
        if (scope.has(key)) duplicates.push(key);
        scope.add(key);
      }
    }
  }
  return duplicates;
}
