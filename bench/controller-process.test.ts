import { describe, expect, it } from 'vitest';
import { imageEntrypoint } from './controller-process.ts';

describe('imageEntrypoint', () => {
  it('reads the node flags and the script of the image ENTRYPOINT', () => {
    expect(
      imageEntrypoint('FROM x\nENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=1", "dist/main.js"]\n'),
    ).toEqual({ flags: ['--max-semi-space-size=1'], script: 'dist/main.js' });
    expect(imageEntrypoint().script).toBe('dist/main.js');
  });

  it.each([
    ['no exec-form ENTRYPOINT', 'FROM x\nCMD node src/main.ts\n', /ENTRYPOINT/],
    ['an ENTRYPOINT without a script', 'FROM x\nENTRYPOINT ["/nodejs/bin/node", "--flag"]\n', /no script/],
  ])('refuses a Dockerfile with %s', (_what, dockerfile, error) => {
    expect(() => imageEntrypoint(dockerfile)).toThrow(error);
  });
});
