/**
 * The decisions are pure: no module under src/reconcile/ (nor translate/, which they build on) loads the
 * HTTP stack or the Kubernetes client, directly or through what it imports, so the plan, a test or any
 * future reader runs them without a connection pool. Followed through the source's static imports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..');
/** What a pure module must never reach. */
const FORBIDDEN = [
  /^undici$/,
  /^@kubernetes\/client-node$/,
  /^src\/kube\//,
  /^src\/controlplane\/(client|transport|pools)\.ts$/,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !/\.test(-support)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The modules a file imports (values and types alike: a type import is erased, so it is skipped). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gm)) {
    if (m[2]) continue;
    const spec = m[3] as string;
    out.push(spec.startsWith('.') ? resolve(dirname(file), spec) : spec);
  }
  return out;
}

/** The first forbidden module `file` reaches, with the path that reaches it. */
function reaches(file: string): string[] | undefined {
  const seen = new Set<string>();
  const walk = (at: string, path: string[]): string[] | undefined => {
    if (seen.has(at)) return undefined;
    seen.add(at);
    const name = at.startsWith('/') ? relative(resolve(SRC, '..'), at) : at;
    if (FORBIDDEN.some((f) => f.test(name))) return [...path, name];
    if (!at.startsWith('/')) return undefined;
    for (const next of importsOf(at)) {
      const found = walk(next, [...path, name]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(file, []);
}

describe('pure modules', () => {
  const files = [...sourceFiles(join(SRC, 'reconcile')), ...sourceFiles(join(SRC, 'translate'))];

  it('are found', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files.map((f) => [relative(SRC, f), f]))('%s loads no HTTP stack', (_, file) => {
    expect(reaches(file)).toBeUndefined();
  });
});
