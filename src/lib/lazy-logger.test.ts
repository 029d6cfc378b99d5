import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChild } from './lazy-logger.ts';

/** A logger at `level` writing its lines to an array, and a spy on how many children it made. */
function logger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const out = new Writable({
    write(chunk, _, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const root = pino({ level }, out);
  let made = 0;
  const child = root.child;
  root.child = function (this: pino.Logger, ...args: Parameters<typeof child>) {
    made += 1;
    return child.apply(this, args);
  } as typeof root.child;
  return { root, lines, made: () => made };
}

describe('lazyChild', () => {
  it.each([
    ['a level that is off makes no child', 'info', (log: pino.Logger) => log.debug('x'), 0, 0, 0],
    [
      'a message at a level on makes one, once',
      'info',
      (log: pino.Logger) => {
        log.info('a');
        log.warn('b');
      },
      1,
      1,
      2,
    ],
    // The child, then its own child (pino's children inherit the spied method).
    [
      'asking for a child makes it',
      'info',
      (log: pino.Logger) => log.child({ step: 's' }).info('c'),
      1,
      2,
      1,
    ],
    [
      'asking the level makes nothing',
      'debug',
      (log: pino.Logger) => {
        expect(log.level).toBe('debug');
        expect(log.isLevelEnabled('trace')).toBe(false);
      },
      0,
      0,
      0,
    ],
    [
      'a level that is off, asked of a lazy child of it, makes neither',
      'info',
      (log: pino.Logger) => lazyChild(log, () => ({ step: 's' })).debug('x'),
      0,
      0,
      0,
    ],
    [
      'a message through a lazy child of it makes both, with both bindings',
      'info',
      (log: pino.Logger) => lazyChild(log, () => ({ step: 's' })).info('x'),
      1,
      2,
      1,
    ],
    ['nothing asked makes nothing', 'info', () => {}, 0, 0, 0],
  ])('%s', async (_, level, use, bindings, children, written) => {
    const { root, lines, made } = logger(level);
    let bound = 0;
    const log = lazyChild(root, () => {
      bound += 1;
      return { key: 'ns/a' };
    });
    use(log);
    await new Promise((r) => setImmediate(r));
    expect(made()).toBe(children);
    expect(bound).toBe(bindings);
    expect(lines).toHaveLength(written);
    for (const line of lines) expect(line.key).toBe('ns/a');
  });
});
