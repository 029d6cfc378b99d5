import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { Agent, buildConnector, getGlobalDispatcher, Pool, ProxyAgent } from './undici.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

describe('undici loaded file by file', () => {
  it.each([
    ['Pool', Pool, undici.Pool],
    ['Agent', Agent, undici.Agent],
    ['ProxyAgent', ProxyAgent, undici.ProxyAgent],
    ['getGlobalDispatcher', getGlobalDispatcher, undici.getGlobalDispatcher],
    ['buildConnector', buildConnector, undici.buildConnector],
  ] as const)('%s is the one undici exports', (_, ours, theirs) => {
    expect(ours).toBe(theirs);
  });

  it("the controller's modules never load undici's index, and its dispatchers still have request()", () => {
    // A fresh process: this test file itself loaded the index above.
    const script = `
      const { createRequire } = await import('node:module');
      await import('./src/operator.ts');
      await import('./src/cli.ts');
      const { Agent } = await import('./src/lib/undici.ts');
      const cache = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({
        index: cache.filter((f) => /node_modules\\/undici\\/index\\.js$/.test(f)),
        request: typeof new Agent().request,
      }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPO,
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim().split('\n').at(-1) ?? '')).toEqual({ index: [], request: 'function' });
  });
});
