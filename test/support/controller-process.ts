/**
 * The controller as a child process (`node src/main.ts`), for tests that kill it. Output lines of every
 * run go to one shared list, so a test can read what all incarnations logged; a process still running
 * when the test process exits is killed with it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

const MAIN = resolve(import.meta.dirname, '../../src/main.ts');

export interface ControllerProcess {
  readonly pid: number;
  /** Resolves when the process has exited, with its exit code or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once a log line satisfies `match`; rejects when the process exits first. */
  waitForLine(match: (line: string) => boolean): Promise<string>;
  /** SIGKILL (no shutdown path runs), then waits for the exit. */
  kill(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts `node src/main.ts` with exactly `env` (plus PATH). `lines` collects stdout and stderr, each
 * line prefixed with the run's `label` so lines of different incarnations can be told apart.
 */
export function startControllerProcess(
  env: Record<string, string>,
  lines: string[],
  label = 'controller',
): ControllerProcess {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('the controller process did not start');
  running.add(child);
  const watchers = new Set<(line: string) => void>();
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(`${label}: ${line}`);
      for (const watcher of watchers) watcher(line);
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      done({ code, signal });
    });
  });

  return {
    pid: child.pid,
    exited,
    waitForLine: (match) =>
      new Promise((found, failed) => {
        const watcher = (line: string) => {
          if (!match(line)) return;
          watchers.delete(watcher);
          found(line);
        };
        watchers.add(watcher);
        void exited.then(({ code, signal }) => {
          if (!watchers.delete(watcher)) return;
          failed(new Error(`${label} exited (code ${code}, signal ${signal}) before the awaited line`));
        });
      }),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
