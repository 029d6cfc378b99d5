/**
 * The Argo CD health checks (argocd/resource_customizations/<group>/<kind>/health.lua) over the fixtures
 * their health_test.yaml lists, in Argo CD's own test format. They run in gopher-lua (the Lua 5.1 VM Argo
 * CD embeds), built from the Go module proxy by scripts/lua-interpreter.sh, and also in the reference
 * Lua 5.1 interpreter when the machine has `lua5.1`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { REPO, run } from './packaging-helpers.ts';

const HEALTH_DIR = join(REPO, 'argocd/resource_customizations/deploy.agents.dev');
const KINDS = readdirSync(HEALTH_DIR).sort();

const HealthTests = z.object({
  tests: z.array(
    z.object({
      healthStatus: z.object({
        status: z.enum(['Healthy', 'Progressing', 'Degraded', 'Suspended', 'Missing', 'Unknown']),
        message: z.string(),
      }),
      inputPath: z.string(),
    }),
  ),
});

/** A JSON value as a Lua table constructor (null becomes nil, as Argo CD converts objects). */
function toLua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') {
    return `"${value.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(toLua).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null);
  return `{${entries.map(([k, v]) => `[${toLua(k)}] = ${toLua(v)}`).join(', ')}}`;
}

/** The health script as Argo CD runs it: a chunk with the object in the global `obj`, returning a table. */
function program(script: string, obj: unknown): string {
  return [
    `obj = ${toLua(obj)}`,
    'local function health()',
    script,
    'end',
    'local hs = health()',
    'io.write(hs.status, "\\n", hs.message or "")',
  ].join('\n');
}

const interpreters: { name: string; path: string }[] = [];

beforeAll(() => {
  const glua = execFileSync(join(REPO, 'scripts/lua-interpreter.sh'), { encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1);
  interpreters.push({ name: 'gopher-lua', path: glua as string });
  try {
    execFileSync('lua5.1', ['-v'], { stdio: 'ignore' });
    interpreters.push({ name: 'lua5.1', path: 'lua5.1' });
  } catch {
    // Only gopher-lua then: it is what Argo CD runs.
  }
}, 300_000);

const work = mkdtempSync(join(tmpdir(), 'argocd-health-'));

describe.each(KINDS)('%s health.lua', (kind) => {
  const dir = join(HEALTH_DIR, kind);
  const script = readFileSync(join(dir, 'health.lua'), 'utf8');
  const cases = HealthTests.parse(yaml.load(readFileSync(join(dir, 'health_test.yaml'), 'utf8'))).tests;

  it('has a fixture for every health state', () => {
    expect(new Set(cases.map((c) => c.healthStatus.status))).toEqual(
      new Set(['Healthy', 'Progressing', 'Degraded', 'Suspended']),
    );
  });

  it('uses only what Argo CD exposes to health scripts (no io, os, require, load)', () => {
    expect(script).not.toMatch(/\b(io|os|debug|package)\.|\b(require|dofile|loadstring|loadfile)\s*\(/);
  });

  it.each(cases.map((c) => [c.inputPath, c.healthStatus] as const))(
    '%s -> %o',
    async (inputPath, expected) => {
      const obj = yaml.load(readFileSync(join(dir, inputPath), 'utf8'));
      const file = join(work, `${kind}-${inputPath.replace(/\W+/g, '_')}.lua`);
      writeFileSync(file, program(script, obj));
      expect(interpreters.length).toBeGreaterThan(0);
      for (const lua of interpreters) {
        const result = await run(lua.path, [file]);
        expect(result.stderr, lua.name).toBe('');
        const [status, ...message] = result.stdout.split('\n');
        expect({ status, message: message.join('\n') }, lua.name).toEqual(expected);
      }
    },
  );
});
