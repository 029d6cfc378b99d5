import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INSPECT_FLAG, inspectorUrl, startProfile } from './convergence-profile.ts';
import { parseBenchOptions } from './options.ts';
import { sleep, waitFor } from './pool.ts';

describe('inspectorUrl', () => {
  it.each([
    [
      'node 24',
      'Debugger listening on ws://127.0.0.1:39147/4a1e2b6c-9f0d-4c3e-8a51-2d6f7b9e0c13\nFor help, see: https://nodejs.org/en/docs/inspector\n',
      'ws://127.0.0.1:39147/4a1e2b6c-9f0d-4c3e-8a51-2d6f7b9e0c13',
    ],
    [
      'after other output',
      '{"level":30}\nDebugger listening on ws://127.0.0.1:9229/abc-def\n',
      'ws://127.0.0.1:9229/abc-def',
    ],
    ['no inspector', '{"level":30,"msg":"started"}\n', undefined],
    ['not the loopback address', 'Debugger listening on ws://0.0.0.0:9229/abc\n', undefined],
  ])('%s', (_, log, url) => {
    expect(inspectorUrl(log)).toBe(url);
  });
});

describe('startProfile', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A busy process with its inspector open, as the bench starts the controller; its log file. */
  async function busyProcess(): Promise<{ log: string; child: ChildProcess }> {
    const dir = mkdtempSync(join(tmpdir(), 'profile-'));
    dirs.push(dir);
    const log = join(dir, 'controller.log');
    const out = openSync(log, 'a');
    const script =
      "function busyConvergence(){const t=Date.now();while(Date.now()-t<5){}}setInterval(busyConvergence,10);console.log('busy')";
    const child = spawn(process.execPath, [INSPECT_FLAG, '-e', script], { stdio: ['ignore', out, out] });
    children.push(child);
    await waitFor(() => (/^busy$/m.test(readFileSync(log, 'utf8')) ? true : undefined), {
      timeoutMs: 10_000,
      describe: () => `the process did not start: ${readFileSync(log, 'utf8')}`,
    });
    return { log, child };
  }

  it('profiles a process started with the flag from start to stop', async () => {
    const { log } = await busyProcess();
    const running = await startProfile(log);
    await sleep(300);
    const profile = (await running.stop()) as {
      nodes: { callFrame: { functionName: string } }[];
      samples: number[];
      startTime: number;
      endTime: number;
    };
    // The span asked for (start to stop, in µs), sampled about every millisecond.
    expect(profile.endTime - profile.startTime).toBeGreaterThanOrEqual(250_000);
    expect(profile.endTime - profile.startTime).toBeLessThan(5_000_000);
    expect(profile.samples.length).toBeGreaterThan(100);
    expect(profile.nodes.map((n) => n.callFrame.functionName)).toContain('(root)');
  });

  it('fails, not hangs, when the process is gone before the profile is stopped', async () => {
    const { log, child } = await busyProcess();
    const running = await startProfile(log);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await expect(running.stop()).rejects.toThrow('closed');
  });

  it('says what is missing when the process has no inspector', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'profile-'));
    dirs.push(dir);
    const log = join(dir, 'controller.log');
    openSync(log, 'a');
    await expect(startProfile(log)).rejects.toThrow(`was the controller started with ${INSPECT_FLAG}?`);
  });
});

describe('--profile', () => {
  it('is for the single run only, and off unless asked', () => {
    expect(parseBenchOptions([]).profile).toBe(false);
    expect(parseBenchOptions(['--profile', 'true']).profile).toBe(true);
    expect(() => parseBenchOptions(['--profile', 'true', '--replicas', '3'])).toThrow(
      '--profile is for the single run',
    );
    expect(() => parseBenchOptions(['--profile', 'yes'])).toThrow('--profile must be true or false');
  });
});
