/**
 * A CPU profile of the controller over one span only (the bench: from the first apply to all Ready),
 * through the inspector the controller was started with (`--inspect=127.0.0.1:0`): `--cpu-prof` covers
 * the whole process, start-up and the steady intervals included, which hides a 10% difference in the
 * convergence. The profile is the DevTools `.cpuprofile` JSON.
 */
import { readFileSync } from 'node:fs';

/** The flag that opens the inspector on a free port of the loopback address, printed to stderr. */
export const INSPECT_FLAG = '--inspect=127.0.0.1:0';

/** The inspector's WebSocket address, as node prints it to stderr (the controller's log file). */
export function inspectorUrl(log: string): string | undefined {
  return /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/.exec(log)?.[1];
}

export interface RunningProfile {
  /** Stops the profiler and returns the profile. */
  stop(): Promise<unknown>;
}

/** Starts the profiler in the process whose inspector prints to `logFile`. */
export async function startProfile(logFile: string, samplingIntervalUs = 1000): Promise<RunningProfile> {
  const url = inspectorUrl(readFileSync(logFile, 'utf8'));
  if (!url)
    throw new Error(`no inspector address in ${logFile}: was the controller started with ${INSPECT_FLAG}?`);
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`cannot reach the inspector at ${url}`)), {
      once: true,
    });
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve(result: unknown): void; reject(err: Error): void }>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
    };
    const call = message.id === undefined ? undefined : waiting.get(message.id);
    if (!call || message.id === undefined) return;
    waiting.delete(message.id);
    if (message.error) call.reject(new Error(`inspector: ${message.error.message}`));
    else call.resolve(message.result);
  });
  // The controller gone (a crash, a kill) answers nothing more: every call waiting fails, none hangs.
  socket.addEventListener('close', () => {
    for (const call of waiting.values()) call.reject(new Error(`the inspector at ${url} closed`));
    waiting.clear();
  });
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) => {
      if (socket.readyState !== WebSocket.OPEN) {
        reject(new Error(`the inspector at ${url} closed`));
        return;
      }
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: samplingIntervalUs });
  await send('Profiler.start');
  return {
    async stop() {
      try {
        const { profile } = (await send('Profiler.stop')) as { profile: unknown };
        return profile;
      } finally {
        socket.close();
      }
    },
  };
}
