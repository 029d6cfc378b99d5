import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

describe('@kubernetes/client-node is a development dependency', () => {
  it('no module of the controller or the kubectl plugin loads it (its types only, erased by the compiler)', () => {
    // A fresh process, recording every module that asks for it: the image has no client-node to give.
    const script = `
      const { registerHooks } = await import('node:module');
      const askedBy = [];
      registerHooks({
        resolve(specifier, context, next) {
          if (/^@kubernetes\\/client-node(\\/|$)/.test(specifier)) askedBy.push(context.parentURL);
          return next(specifier, context);
        },
      });
      await import('./src/startup.ts');
      await import('./src/operator.ts');
      await import('./src/cli.ts');
      console.log(JSON.stringify(askedBy));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPO,
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim().split('\n').at(-1) ?? '')).toEqual([]);
  });
});
