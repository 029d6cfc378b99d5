import { describe, expect, it } from 'vitest';
import { imageNodeFlags } from './controller-process.ts';

describe('imageNodeFlags', () => {
  it('reads the node flags of the image ENTRYPOINT', () => {
    expect(
      imageNodeFlags('FROM x\nENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=1", "src/main.ts"]\n'),
    ).toEqual(['--max-semi-space-size=1']);
    expect(imageNodeFlags()).toContain('--max-semi-space-size=1');
  });

  it('refuses a Dockerfile without an exec-form ENTRYPOINT', () => {
    expect(() => imageNodeFlags('FROM x\nCMD node src/main.ts\n')).toThrow(/ENTRYPOINT/);
  });
});
