import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tarGz } from './tar.ts';

const entries = [
  { name: 'kubectl-agd', mode: 0o755, data: Buffer.from('#!/bin/sh\necho hi\n'.repeat(100)) },
  { name: 'kubectl_complete-agd', mode: 0o755, data: Buffer.from('#!/bin/sh\nexec kubectl-agd\n') },
  { name: 'empty', mode: 0o644, data: Buffer.alloc(0) },
];

describe('tarGz', () => {
  it('is read back by tar: contents and modes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agd-tar-'));
    writeFileSync(join(dir, 'a.tar.gz'), tarGz(entries));
    const untar = spawnSync('tar', ['-xzf', 'a.tar.gz'], { cwd: dir, encoding: 'utf8' });
    expect(untar.stderr).toBe('');
    expect(readFileSync(join(dir, 'kubectl-agd'))).toEqual(
      entries[0] && 'data' in entries[0] ? entries[0].data : undefined,
    );
    expect(statSync(join(dir, 'kubectl-agd')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(dir, 'kubectl_complete-agd'), 'utf8')).toBe('#!/bin/sh\nexec kubectl-agd\n');
    expect(statSync(join(dir, 'empty')).size).toBe(0);
  });

  it('gives the same bytes for the same files, in any order', () => {
    expect(tarGz([...entries].reverse())).toEqual(tarGz(entries));
  });

  it('refuses a name longer than ustar holds', () => {
    expect(() => tarGz([{ name: 'x'.repeat(101), mode: 0o644, data: Buffer.alloc(1) }])).toThrow(
      'over 100 bytes',
    );
  });
});
