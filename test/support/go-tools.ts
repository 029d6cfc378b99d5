/**
 * Tools the tests build from the Go module proxy into the user's cache (scripts/*-binary.sh): the path
 * of the binary, built the first time (which takes minutes).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The time a beforeAll gives a first build: promtool took about 9.5 minutes on 2 shared cores, past the
 * integration project's 10-minute hook timeout under load.
 */
export const FIRST_BUILD_TIMEOUT_MS = 30 * 60_000;
const SCRIPTS = resolve(import.meta.dirname, '../../scripts');

/** Runs a build script and returns the path it prints as its last line. */
export async function goTool(
  script:
    | 'kstatus-binary.sh'
    | 'promtool-binary.sh'
    | 'prometheus-binary.sh'
    | 'krew-binary.sh'
    | 'cel-cost-binary.sh',
): Promise<string> {
  const { stdout } = await run(resolve(SCRIPTS, script), { maxBuffer: 16 * 1024 * 1024 });
  const path = stdout.trim().split('\n').at(-1);
  if (!path) throw new Error(`${script} printed no path`);
  return path;
}
