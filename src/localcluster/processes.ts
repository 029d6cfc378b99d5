import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

/** A server process the launcher started; its output goes to `logFile`. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves when the process has exited (for whatever reason). */
  readonly exited: Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  readonly logFile: string;
  /** Survive the parent: own process group, no kill-on-exit (for `scripts/cluster.ts up`). */
  readonly detached: boolean;
}

// Children of this process that must not outlive it. While any exist, exit and signal handlers are
// installed that SIGKILL them; the handlers go away with the last child.
const attached = new Set<ChildProcess>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function killAttached(): void {
  for (const child of attached) child.kill('SIGKILL');
  attached.clear();
}

const signalHandlers = new Map<NodeJS.Signals, () => void>(
  SIGNALS.map((signal) => [
    signal,
    () => {
      killAttached();
      uninstallHandlers();
      // Nobody else handles this signal: re-raise it so the process ends as it would have without us.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    },
  ]),
);

function installHandlers(): void {
  process.on('exit', killAttached);
  for (const [signal, handler] of signalHandlers) process.on(signal, handler);
}

function uninstallHandlers(): void {
  process.removeListener('exit', killAttached);
  for (const [signal, handler] of signalHandlers) process.removeListener(signal, handler);
}

function track(child: ChildProcess): void {
  if (attached.size === 0) installHandlers();
  attached.add(child);
  child.once('exit', () => {
    attached.delete(child);
    if (attached.size === 0) uninstallHandlers();
  });
}

let setprivAvailable: boolean | undefined;

/**
 * `setpriv --pdeathsig KILL` makes the kernel kill the child when this process dies, even by SIGKILL,
 * which no handler can catch. Used when util-linux's setpriv exists (it execs, so the pid stays).
 */
function pdeathsigPrefix(): string[] {
  setprivAvailable ??= spawnSync('setpriv', ['--help'], { stdio: 'ignore' }).status === 0;
  return setprivAvailable ? ['setpriv', '--pdeathsig', 'KILL', '--'] : [];
}

export function spawnManaged(
  name: string,
  binary: string,
  args: readonly string[],
  options: SpawnOptions,
): ManagedProcess {
  const command = options.detached ? [binary, ...args] : [...pdeathsigPrefix(), binary, ...args];
  const [file = binary, ...rest] = command;
  const out = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(file, rest, { stdio: ['ignore', out, out], detached: options.detached });
  } finally {
    closeSync(out);
  }
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  if (child.pid === undefined) throw new Error(`could not start ${name} (${binary})`);
  const pid = child.pid;
  if (options.detached) child.unref();
  else track(child);

  return {
    name,
    pid,
    logFile: options.logFile,
    exited,
    async stop(graceMs = 5_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** True when `pid` is alive and runs `binary` (guards against killing a recycled pid). */
export function isProcessRunning(pid: number, binary: string): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.startsWith(`${binary}\0`);
  } catch {
    return false;
  }
}

export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Stops a process this one did not start (found in a pidfile): SIGTERM, then SIGKILL after `graceMs`. */
export async function terminatePid(pid: number, binary: string, graceMs = 5_000): Promise<void> {
  if (!isProcessRunning(pid, binary)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isProcessRunning(pid, binary)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  while (isProcessRunning(pid, binary)) await new Promise((resolve) => setTimeout(resolve, 50));
}
