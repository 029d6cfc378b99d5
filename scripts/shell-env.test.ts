import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeKubectlPlugin, writeShellEnv } from './shell-env.ts';

const REPO = join(import.meta.dirname, '..');

/** Sources the env file in a shell whose PATH holds only the basics, and runs `script` there. */
function inShell(env: string, script: string) {
  return spawnSync('/bin/sh', ['-c', `. "$1" && ${script}`, 'sh', env], {
    env: { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
  });
}

describe('writeShellEnv', () => {
  it('puts the built kubectl on PATH and sets KUBECONFIG, even for paths with spaces and quotes', () => {
    const dir = mkdtempSync(join(tmpdir(), "shell env 'x' "));
    const binDir = join(dir, 'bin');
    mkdirSync(binDir);
    writeFileSync(join(binDir, 'kubectl'), '#!/bin/sh\necho built-kubectl\n');
    chmodSync(join(binDir, 'kubectl'), 0o755);
    const kubeconfigPath = join(dir, 'kubeconfig');
    const env = writeShellEnv(dir, { kubeconfigPath, binDir });
    expect(readFileSync(env, 'utf8')).toContain('export KUBECONFIG=');
    expect(readFileSync(env, 'utf8')).not.toContain('CONTROL_PLANE');
    const shell = inShell(env, 'kubectl && printf %s "$KUBECONFIG"');
    expect(shell.stderr).toBe('');
    expect(shell.stdout).toBe(`built-kubectl\n${kubeconfigPath}`);
  });

  it("with make run's simulator: the variables kubectl agd reads, and kubectl-agd on PATH", () => {
    const dir = mkdtempSync(join(tmpdir(), 'shell-env-'));
    const env = writeShellEnv(dir, {
      kubeconfigPath: join(dir, 'kubeconfig'),
      binDir: join(dir, 'bin'),
      pluginDir: writeKubectlPlugin(dir, REPO),
      controlPlane: { url: 'http://127.0.0.1:40123', apiKey: "sim-'key" },
    });
    expect(statSync(env).mode & 0o777).toBe(0o600);
    const vars = inShell(env, 'printf "%s %s" "$CONTROL_PLANE_URL" "$CONTROL_PLANE_API_KEY"');
    expect(vars.stdout).toBe("http://127.0.0.1:40123 sim-'key");
    // The plugin runs this clone's CLI on the pinned Node.js, whatever node the machine has.
    const plugin = inShell(env, 'kubectl-agd --help');
    expect(plugin.stderr).toBe('');
    expect(plugin.stdout).toContain('Usage: kubectl agd plan');
    const completion = inShell(env, 'kubectl_complete-agd pl');
    expect(completion.stdout).toMatch(/^plan\t.*\n:4\n$/);
  });
});
