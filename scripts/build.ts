/**
 * Compiles the controller and the kubectl plugin to JavaScript (`tsc -p tsconfig.build.json`, only what
 * src/main.ts and src/cli.ts import) and copies the data files they read. The image and `make bench` run
 * this output: Node.js's type stripping, fine for `make run`, keeps its TypeScript parser (a WebAssembly
 * module) in memory, about 30 MiB of a controller whose idle target is 80. With --cli, the plugin alone
 * (tsconfig.cli.json): the npm package's `prepack` builds that, since Node.js strips no types under
 * node_modules.
 * Usage: node scripts/build.ts [--cli] [OUT_DIR]   (default dist/)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');

/** Data files under src/ that modules read at run time (with readFileSync beside themselves). */
function dataFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => join(entry.parentPath, entry.name));
}

export function buildController(outDir: string, project = 'tsconfig.build.json'): void {
  rmSync(outDir, { recursive: true, force: true });
  const tsc = join(REPO, 'node_modules', '.bin', 'tsc');
  const result = spawnSync(tsc, ['-p', join(REPO, project), '--outDir', outDir], {
    cwd: REPO,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`tsc failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  }
  // Beside a compiled module only: the simulator's and tests' data stay out.
  const src = join(REPO, 'src');
  for (const file of dataFiles(src)) {
    const to = join(outDir, relative(src, file));
    if (existsSync(dirname(to))) cpSync(file, to);
  }
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const cliOnly = args[0] === '--cli';
  const outDir = resolve(args[cliOnly ? 1 : 0] ?? join(REPO, 'dist'));
  buildController(outDir, cliOnly ? 'tsconfig.cli.json' : 'tsconfig.build.json');
  process.stdout.write(`built ${relative(process.cwd(), outDir) || '.'}\n`);
}
