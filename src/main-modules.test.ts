import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('..', import.meta.url));

/** The packages the controller imports itself; what they depend on belongs too, but for KEPT_OUT. */
const CONTROLLER_PACKAGES = ['pino', 'prom-client', 'undici', 'zod'];

/**
 * Dependencies the controller keeps from loading: prom-client's exemplars (@opentelemetry/api) and
 * Summary (tdigest, bintrees), which src/lib/prom-client.ts leaves out.
 */
const KEPT_OUT = ['@opentelemetry/api', 'tdigest', 'bintrees'];

/** Parts of this repository a controller never runs: each costs memory in every controller process. */
const NOT_THE_CONTROLLER: [string, RegExp][] = [
  ['the plan (kubectl agd plan)', /^src\/plan\//],
  ['import (kubectl agd import)', /^src\/import\//],
  ['the kubectl plugin', /^src\/cli(\/|\.ts$)/],
  ['the simulator', /^src\/simulator\//],
  ['the local cluster', /^src\/localcluster\//],
];

/** `names` and every package they depend on, transitively, as npm installed them (flat). */
function withDependencies(names: readonly string[]): Set<string> {
  const found = new Set<string>();
  const visit = (name: string) => {
    if (found.has(name)) return;
    found.add(name);
    const manifest = JSON.parse(readFileSync(join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency);
  };
  for (const name of names) visit(name);
  return found;
}

/**
 * Every module a controller process loads before it reads its configuration: all of src/main.ts's
 * imports (the controller has no dynamic import), recorded by a resolve hook as `node src/main.ts --help`
 * starts, as paths relative to the repository or `node_modules/<package>/...`.
 */
function controllerModules(): string[] {
  const out = join(mkdtempSync(join(tmpdir(), 'main-modules-')), 'modules.json');
  const hook = `
    import { registerHooks } from 'node:module';
    import { writeFileSync } from 'node:fs';
    const loaded = new Set();
    registerHooks({
      resolve(specifier, context, next) {
        const resolved = next(specifier, context);
        loaded.add(resolved.url);
        return resolved;
      },
    });
    process.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify([...loaded])));`;
  execFileSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, 'src/main.ts', '--help'],
    { cwd: REPO, encoding: 'utf8' },
  );
  return (JSON.parse(readFileSync(out, 'utf8')) as string[])
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url))
    .map((path) =>
      path.includes('/node_modules/')
        ? path.replace(/^.*\/node_modules\//, 'node_modules/')
        : relative(REPO, path),
    );
}

const packageOf = (path: string) => /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];

describe('the modules a controller process loads', () => {
  const modules = controllerModules();

  it("are the controller's own and its packages", () => {
    expect(modules).toContain('src/main.ts');
    expect(modules).toContain('src/operator.ts');
    const allowed = withDependencies(CONTROLLER_PACKAGES);
    for (const name of KEPT_OUT) allowed.delete(name);
    const packages = new Set(modules.map(packageOf).filter((p) => p !== undefined));
    // Not @kubernetes/client-node (its types only), not the CEL evaluator (loaded once an object asks
    // for an analysis: analysis/conditions.ts), not js-yaml (only a kubeconfig file needs it, loaded
    // when one is read: a controller in a pod has none).
    expect([...packages].filter((p) => !allowed.has(p))).toEqual([]);
    for (const name of CONTROLLER_PACKAGES) expect(packages).toContain(name);
  });

  it.each(NOT_THE_CONTROLLER)('are none of %s', (_what, path) => {
    expect(modules.filter((m) => path.test(m))).toEqual([]);
  });
});
