/**
 * The Argo CD health scripts are Lua, so they cannot import the names module: this keeps every
 * condition type, annotation and revision status they read equal to what the controller writes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REVISION_FAILED, RevisionStatus } from '../controlplane/schemas.ts';
import { Annotation, ConditionType } from './names.ts';

const HEALTH_DIR = join(import.meta.dirname, '../../argocd/resource_customizations/deploy.agents.dev');
const scripts = readdirSync(HEALTH_DIR).map((kind) => ({
  kind,
  lua: readFileSync(join(HEALTH_DIR, kind, 'health.lua'), 'utf8'),
}));

const all = (lua: string, pattern: RegExp) => [...lua.matchAll(pattern)].map((m) => m[1] as string);
/** The keys of a Lua table literal `local NAME = { A = true, B = true }`. */
const tableKeys = (lua: string, name: string) => {
  const body = new RegExp(`local ${name} = \\{([^}]*)\\}`).exec(lua)?.[1] ?? '';
  return all(body, /([A-Z_]+) = true/g);
};

describe.each(scripts)('$kind health.lua', ({ lua }) => {
  it('reads only condition types the controller writes', () => {
    const types = all(lua, /condition\("([^"]+)"\)/g);
    expect(types.length).toBeGreaterThan(0);
    for (const t of types) expect(Object.values(ConditionType)).toContain(t);
  });

  it('reads only annotations the controller knows', () => {
    for (const a of all(lua, /annotations\["([^"]+)"\]/g)) expect(Object.values(Annotation)).toContain(a);
  });

  it('names only revision statuses of the interface document, and all the failed ones', () => {
    const failed = tableKeys(lua, 'FAILED');
    const inProgress = tableKeys(lua, 'IN_PROGRESS');
    for (const s of [...failed, ...inProgress]) expect(RevisionStatus.options).toContain(s);
    if (failed.length > 0) expect(new Set(failed)).toEqual(REVISION_FAILED);
  });
});
