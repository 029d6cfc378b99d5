import { describe, expect, it } from 'vitest';
import { imageEntrypoint } from './controller-process.ts';

describe('imageEntrypoint', () => {
  it('reads the node flags and the script of the image ENTRYPOINT', () => {
    expect(
      imageEntrypoint('FROM x\nENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=1", "dist/main.js"]\n'),
    ).toEqual({ flags: ['--max-semi-space-size=1'], script: 'dist/main.js', env: {} });
    expect(imageEntrypoint().script).toBe('dist/main.js');
  });

  it('reads the environment the ENV lines set', () => {
    const dockerfile = 'FROM x\nENV A=1\nENV B=two C=x=y\nENTRYPOINT ["/nodejs/bin/node", "main.js"]\n';
    expect(imageEntrypoint(dockerfile).env).toEqual({ A: '1', B: 'two', C: 'x=y' });
    expect(imageEntrypoint().env).toMatchObject({ NODE_ENV: 'production', MALLOC_ARENA_MAX: '1' });
  });

  it.each([
    ['no exec-form ENTRYPOINT', 'FROM x\nCMD node src/main.ts\n', /ENTRYPOINT/],
    ['an ENTRYPOINT without a script', 'FROM x\nENTRYPOINT ["/nodejs/bin/node", "--flag"]\n', /no script/],
  ])('refuses a Dockerfile with %s', (_what, dockerfile, error) => {
    expect(() => imageEntrypoint(dockerfile)).toThrow(error);
  });
});
