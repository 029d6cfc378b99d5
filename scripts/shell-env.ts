/**
 * The shell set-up for the local API server that `make run` and `make cluster-up` start: KUBECONFIG, and
 * the kubectl and helm the project built on PATH, for machines that have neither. Written next to the
 * kubeconfig as `env`, so the README's quickstart is one `source` line.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function shellEnv(cluster: { kubeconfigPath: string; binDir: string }): string {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  return [
    '# Written by `make run` / `make cluster-up`: source it to use the local API server.',
    `export KUBECONFIG=${quote(cluster.kubeconfigPath)}`,
    `export PATH=${quote(cluster.binDir)}:"$PATH"`,
    '',
  ].join('\n');
}

/** Writes `env` beside the kubeconfig and returns its path. */
export function writeShellEnv(stateDir: string, cluster: { kubeconfigPath: string; binDir: string }): string {
  const path = join(stateDir, 'env');
  writeFileSync(path, shellEnv(cluster));
  return path;
}
