import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

/** The binaries scripts/kube-binaries.sh provides. */
export const KUBE_BINARIES = ['kube-apiserver', 'kubectl', 'etcd', 'helm'] as const;

const SCRIPT = resolve(import.meta.dirname, '../../scripts/kube-binaries.sh');

/**
 * Runs scripts/kube-binaries.sh (instant when cached, a long Go build on a fresh machine) and returns
 * the bin directory it prints as its last line. Build progress goes to `log` line by line.
 */
export async function ensureKubeBinaries(log: (line: string) => void): Promise<string> {
  const child = spawn('bash', [SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => stdout.push(line));
  createInterface({ input: child.stderr }).on('line', log);
  const code = await new Promise<number | null>((done, fail) => {
    child.once('error', fail);
    child.once('close', done);
  });
  const binDir = stdout.at(-1)?.trim();
  if (code !== 0 || !binDir) throw new Error(`${SCRIPT} failed (exit code ${code})`);
  await Promise.all(KUBE_BINARIES.map((name) => access(join(binDir, name), constants.X_OK)));
  return binDir;
}
