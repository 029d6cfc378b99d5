/**
 * Small modules with one job each: no module under src/ (the simulator and test support included, the
 * test files themselves not) is over 400 lines. One that grows past it is split by what it does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('.', import.meta.url));
const MAX_LINES = 400;

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('module size', () => {
  it(`no module under src/ is over ${MAX_LINES} lines`, () => {
    const over = modules(SRC)
      .map((path) => ({
        path: relative(SRC, path),
        lines: readFileSync(path, 'utf8').split('\n').length - 1,
      }))
      .filter((m) => m.lines > MAX_LINES)
      .map((m) => `src/${m.path}: ${m.lines} lines`);
    expect(over).toEqual([]);
  });
});
