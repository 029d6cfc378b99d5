import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface KubectlResult {
  readonly stdout: string;
  readonly stderr: string;
  /** Exit code; kubectl failing is a result, not an exception. */
  readonly code: number;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin (for `-f -`). */
  readonly input?: string;
  readonly namespace?: string;
}

/** Runs `binDir/kubectl --kubeconfig <path> [-n ns] ...args`. */
export function runKubectl(
  binDir: string,
  kubeconfigPath: string,
  args: readonly string[],
  options: KubectlOptions = {},
): Promise<KubectlResult> {
  const namespace = options.namespace === undefined ? [] : ['--namespace', options.namespace];
  const child = spawn(join(binDir, 'kubectl'), ['--kubeconfig', kubeconfigPath, ...namespace, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.end(options.input);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({
        stdout: Buffer.concat(stdout).toString(),
        stderr: Buffer.concat(stderr).toString(),
        code: code ?? -1,
      }),
    );
  });
}
