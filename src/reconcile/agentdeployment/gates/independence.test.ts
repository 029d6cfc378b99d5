/**
 * The chains are chains (issue 51): a gate, of any chain (AgentDeployment, SandboxTemplate, deletion),
 * reads facts and returns a verdict or nothing; it imports no other gate (of its chain or another), nor a
 * chain, a program or the runner; and no code outside the programs asks which gate answered
 * (`verdict.gate`) or where a gate stands in the chain. What several gates need is a derived fact.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../..');
const GATE_DIRS = [
  import.meta.dirname,
  resolve(SRC, 'reconcile/sandboxtemplate/gates'),
  resolve(SRC, 'reconcile/agentdeployment/deletion/gates'),
];
const PROGRAM_DIRS = [resolve(SRC, 'reconcile/agentdeployment'), resolve(SRC, 'reconcile/sandboxtemplate')];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !/\.test(-support)?\.ts$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

const importsOf = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/^import[^;]*?from '([^']+)';/gms)].map((m) => m[1] as string);

describe('gates stand alone', () => {
  const gates = GATE_DIRS.flatMap(sources);

  it('every chain has its gates here', () => {
    for (const dir of GATE_DIRS) expect(sources(dir).length).toBeGreaterThan(3);
  });

  it.each(gates.map((f) => [relative(SRC, f), f]))('%s imports no other gate, nor the chain', (_, file) => {
    const wrong = importsOf(file).filter(
      (from) =>
        /^\.\/[\w-]+(\.ts)?$/.test(from) ||
        /(^|\/)gates\/[\w-]+(\.ts)?$/.test(from) ||
        /(^|\/)(chain|program|chain-runner)(\.ts)?$/.test(from),
    );
    expect(wrong).toEqual([]);
  });
});

describe('actors act on the verdict, not on which gate gave it', () => {
  const outside = sources(SRC).filter((f) => !PROGRAM_DIRS.some((d) => f.startsWith(`${d}/`)));

  it('no module outside the programs reads verdict.gate or a chain position', () => {
    const readers = outside.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return /\bverdict\.gate\b|\bdecidedAfterOwnership\b|\b(AGENT_DEPLOYMENT|TEMPLATE|DELETION)_GATES\b/.test(
        text,
      )
        ? [relative(SRC, file)]
        : [];
    });
    expect(readers).toEqual([]);
  });
});
