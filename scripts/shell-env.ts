/**
 * The shell set-up for the local API server that `make run` and `make cluster-up` start: KUBECONFIG, and
 * the kubectl and helm the project built on PATH, for machines that have neither. `make run` adds its
 * control-plane simulator (CONTROL_PLANE_URL and CONTROL_PLANE_API_KEY, the variables `kubectl agd`
 * reads) and a `kubectl-agd` plugin that runs this clone's CLI. Written next to
 * the kubeconfig as `env`, so the README's quickstart is one `source` line.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ShellEnv {
  kubeconfigPath: string;
  binDir: string;
  /** The control plane `kubectl agd` calls (make run's simulator), while it runs. */
  controlPlane?: { url: string; apiKey: string } | undefined;
  /** A directory holding the kubectl-agd plugin, put on PATH too. */
  pluginDir?: string | undefined;
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export function shellEnv(env: ShellEnv): string {
  const path = [env.binDir, ...(env.pluginDir ? [env.pluginDir] : [])].map(quote).join(':');
  return [
    '# Written by `make run` / `make cluster-up`: source it to use the local API server.',
    `export KUBECONFIG=${quote(env.kubeconfigPath)}`,
    `export PATH=${path}:"$PATH"`,
    ...(env.controlPlane
      ? [
          '# The control-plane simulator of `make run` (while it runs), for `kubectl agd plan`.',
          `export CONTROL_PLANE_URL=${quote(env.controlPlane.url)}`,
          `export CONTROL_PLANE_API_KEY=${quote(env.controlPlane.apiKey)}`,
        ]
      : []),
    '',
  ].join('\n');
}

/** Writes `env` beside the kubeconfig (readable by its owner only: it may hold an API key); returns its path. */
export function writeShellEnv(stateDir: string, env: ShellEnv): string {
  const path = join(stateDir, 'env');
  writeFileSync(path, shellEnv(env), { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/**
 * Writes `kubectl-agd` into `<stateDir>/plugins`, running this clone's src/cli.ts on its pinned Node.js
 * (the machine's node may be older than the TypeScript the CLI is), and `kubectl_complete-agd`, which
 * kubectl runs to complete `kubectl agd ...`; returns the directory: `kubectl agd` works without `npm link`.
 */
export function writeKubectlPlugin(stateDir: string, repoRoot: string): string {
  const dir = join(stateDir, 'plugins');
  mkdirSync(dir, { recursive: true });
  const node = join(repoRoot, 'node_modules', '.bin', 'node');
  const cli = join(repoRoot, 'src', 'cli.ts');
  const script = (args: string) =>
    `#!/bin/sh\n# Written by \`make run\`: \`kubectl agd\` runs this clone's CLI.\nexec ${quote(node)} ${quote(cli)} ${args}"$@"\n`;
  writeFileSync(join(dir, 'kubectl-agd'), script(''), { mode: 0o755 });
  writeFileSync(join(dir, 'kubectl_complete-agd'), script('__complete '), { mode: 0o755 });
  return dir;
}
