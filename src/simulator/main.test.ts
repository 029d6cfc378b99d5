import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { SandboxTemplateList } from '../controlplane/template-schemas.ts';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
let child: ChildProcess | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  child = undefined;
});

/** Starts the CLI and resolves with the URL from its "listening" line. */
function startCli(args: string[], env: Record<string, string> = {}): Promise<string> {
  const proc = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' });
  child = proc;
  return new Promise((resolve, reject) => {
    let output = '';
    proc.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /simulator listening on (http:\/\/\S+)/.exec(output);
      if (found?.[1]) resolve(found[1]);
    });
    proc.once('exit', (code) => reject(new Error(`simulator exited with ${code}: ${output}`)));
  });
}

it('serves the example templates with the key from the environment, and a flag wins', async () => {
  const url = await startCli(['--port', '0', '--api-key', 'flag-key'], { SIMULATOR_API_KEY: 'env-key' });
  const withFlagKey = await fetch(`${url}/v2/sandboxes/templates`, { headers: { 'X-Api-Key': 'flag-key' } });
  expect(withFlagKey.status).toBe(200);
  expect(SandboxTemplateList.parse(await withFlagKey.json()).templates.length).toBeGreaterThan(0);
  const withEnvKey = await fetch(`${url}/v2/sandboxes/templates`, { headers: { 'X-Api-Key': 'env-key' } });
  expect(withEnvKey.status).toBe(403);
});

it('stops on SIGTERM with exit code 0', async () => {
  await startCli([], { SIMULATOR_PORT: '0' });
  const proc = child as ChildProcess;
  proc.kill('SIGTERM');
  const [code] = await once(proc, 'exit');
  expect(code).toBe(0);
});

it('seeds the templates of a --templates file', async () => {
  const file = join(await mkdtemp(join(tmpdir(), 'sim-')), 'templates.json');
  await writeFile(file, JSON.stringify([{ name: 'from-file', image: 'img' }]));
  const url = await startCli(['--templates', file, '--revision-step-ms', '10']);
  const answer = await fetch(`${url}/v2/sandboxes/templates`, { headers: { 'X-Api-Key': 'sim-api-key' } });
  expect(SandboxTemplateList.parse(await answer.json()).templates.map((t) => t.name)).toStrictEqual([
    'from-file',
  ]);
});
