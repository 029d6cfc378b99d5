import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeShellEnv } from './shell-env.ts';

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
    // A machine without kubectl: PATH holds only the basics.
    const shell = spawnSync('/bin/sh', ['-c', `. "$1" && kubectl && printf %s "$KUBECONFIG"`, 'sh', env], {
      env: { PATH: '/usr/bin:/bin' },
      encoding: 'utf8',
    });
    expect(shell.stderr).toBe('');
    expect(shell.stdout).toBe(`built-kubectl\n${kubeconfigPath}`);
  });
});
