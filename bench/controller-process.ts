/**
 * The controller as a child process, run as the image runs it (the compiled dist/main.js with the
 * ENTRYPOINT's node flags), so that its RSS and heap are its own and not the benchmark's. Output goes to a log file; readiness is its /readyz.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePorts } from '../src/localcluster/ports.ts';
import { INSPECT_FLAG } from './convergence-profile.ts';
import {
  cpuSeconds,
  type MemoryBreakdown,
  memoryBreakdown,
  type ThreadCpu,
  threadCpuSeconds,
} from './process-memory.ts';

const REPO = resolve(import.meta.dirname, '..');

/**
 * The node flags and the script of the image's ENTRYPOINT, and the environment its ENV lines set, so that
 * the benchmark runs what users get: the compiled controller (scripts/build.ts writes it to dist/) with
 * the same flags and the same allocator settings.
 */
export function imageEntrypoint(dockerfile = readFileSync(resolve(REPO, 'Dockerfile'), 'utf8')): {
  flags: string[];
  script: string;
  env: Record<string, string>;
} {
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  if (!entrypoint) throw new Error('the Dockerfile has no ENTRYPOINT in exec form');
  const args = (JSON.parse(entrypoint) as string[]).slice(1);
  const script = args.at(-1);
  if (!script || script.startsWith('--')) throw new Error('the Dockerfile ENTRYPOINT names no script');
  const env: Record<string, string> = {};
  for (const [, pairs] of dockerfile.matchAll(/^ENV (.+)$/gm)) {
    for (const pair of (pairs as string).trim().split(/\s+/)) {
      const [key, ...value] = pair.split('=');
      if (!key || value.length === 0) throw new Error(`the Dockerfile's ENV ${pair} is not KEY=VALUE`);
      env[key] = value.join('=');
    }
  }
  return { flags: args.filter((arg) => arg.startsWith('--')), script, env };
}

export interface ControllerProcess {
  readonly pid: number;
  readonly logFile: string;
  readonly nodeFlags: string[];
  /** What its memory is made of now (process-memory.ts). */
  memory(): Promise<MemoryBreakdown>;
  /** Its user + system CPU time so far, in seconds. */
  cpuSeconds(): Promise<number>;
  /** The same by kind of thread. */
  threadCpuSeconds(): Promise<ThreadCpu>;
  /** Its /metrics endpoint. */
  readonly metricsUrl: string;
  /** SIGTERM, then SIGKILL after `graceMs`. Idempotent. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once, as an OOM kill or a node failure would end it. */
  kill(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every controller started and not yet stopped, so an interrupted run can kill them. */
const live = new Set<ChildProcess>();

/** Last resort on exit: SIGKILL every child still running (synchronous, as 'exit' handlers must be). */
export function killLiveControllers(): void {
  for (const child of live) child.kill('SIGKILL');
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export async function startControllerProcess(options: {
  env: Record<string, string>;
  logFile: string;
  /** Instead of the image's node flags (for experiments; the run records which were used). */
  nodeFlags?: string[] | undefined;
  /** Opens the inspector on a free loopback port (convergence-profile.ts), after the other flags. */
  inspect?: boolean | undefined;
  /** Instead of the image's compiled script: e.g. src/main.ts, for tests that do not build dist/. */
  script?: string | undefined;
  /**
   * Another checkout's controller (trees.ts): its Dockerfile's flags and ENV, its script under `runDir`,
   * run from there. Default: this checkout.
   */
  tree?: { dir: string; runDir: string } | undefined;
  readyTimeoutMs?: number;
}): Promise<ControllerProcess> {
  const [port] = await freePorts(1);
  const out = openSync(options.logFile, 'a');
  const runDir = options.tree?.runDir ?? REPO;
  const {
    flags: imageFlags,
    script: imageScript,
    env: imageEnv,
  } = imageEntrypoint(readFileSync(resolve(options.tree?.dir ?? REPO, 'Dockerfile'), 'utf8'));
  const flags = [...(options.nodeFlags ?? imageFlags), ...(options.inspect ? [INSPECT_FLAG] : [])];
  const script = options.script ?? imageScript;
  const child = spawn(process.execPath, [...flags, resolve(runDir, script)], {
    cwd: runDir,
    env: { ...process.env, ...imageEnv, ...options.env, HTTP_PORT: String(port) },
    stdio: ['ignore', out, out],
  });
  if (child.pid === undefined) throw new Error('the controller process did not start');
  const pid = child.pid;
  live.add(child);
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((done) =>
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : null);
      live.delete(child);
      done();
    }),
  );
  const base = `http://127.0.0.1:${port}`;

  const stop = async (graceMs = 10_000) => {
    if (exitCode !== undefined) return;
    child.kill('SIGTERM');
    const killed = await Promise.race([exited.then(() => false), sleep(graceMs).then(() => true)]);
    if (killed) {
      child.kill('SIGKILL');
      await exited;
    }
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (exitCode !== undefined) {
      throw new Error(
        `the controller exited (code ${exitCode}) before it was ready; its log:\n${tail(options.logFile)}`,
      );
    }
    const ok = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop(1_000);
      throw new Error(`the controller was not ready within the timeout; its log:\n${tail(options.logFile)}`);
    }
    await sleep(100);
  }

  return {
    pid,
    logFile: options.logFile,
    nodeFlags: flags,
    metricsUrl: `${base}/metrics`,
    memory: () => memoryBreakdown(pid, `${base}/metrics`),
    cpuSeconds: () => cpuSeconds(pid),
    threadCpuSeconds: () => threadCpuSeconds(pid),
    stop,
    kill: async () => {
      if (exitCode !== undefined) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
