/**
 * The checkouts a bench run measures (`--controller-tree`): this one, or another (say one at an earlier
 * commit), each compiled as its image does, run with its own Dockerfile's flags and options, and measured
 * against its own CRDs. Another tree is compiled into .cache/bench-trees/ of this checkout, beside a link
 * to that tree's node_modules, so the tree itself is left as it is.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { buildController } from '../scripts/build.ts';

const REPO = resolve(import.meta.dirname, '..');

export interface ControllerTree {
  /** A short name for the report: the directory's and its commit's ("wt-base@3e44479"). */
  label: string;
  /** The checkout. */
  dir: string;
  /** Where the controller runs from (its cwd): dist/main.js and package.json are beneath it. */
  runDir: string;
  /** The environment variables of its controller options, by flag (its src/options.ts). */
  envByFlag: ReadonlyMap<string, string>;
}

/** "name@commit" of a checkout; the commit with a "+" when its tracked files have changes. */
export function treeLabel(dir: string, commit: string, dirty: boolean): string {
  return `${basename(dir)}@${commit}${dirty ? '+' : ''}`;
}

function git(dir: string, args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();
}

/** Compiles the tree's controller and reads its options; this checkout's goes to dist/ as before. */
export async function prepareTree(treeDir: string): Promise<ControllerTree> {
  const dir = realpathSync(treeDir);
  const label = treeLabel(
    dir,
    git(dir, ['rev-parse', '--short', 'HEAD']),
    git(dir, ['status', '--porcelain', '--untracked-files=no']) !== '',
  );
  let runDir = REPO;
  if (dir === realpathSync(REPO)) {
    buildController(join(REPO, 'dist'));
  } else {
    runDir = join(REPO, '.cache', 'bench-trees', basename(dir));
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(runDir, { recursive: true });
    symlinkSync(realpathSync(join(dir, 'node_modules')), join(runDir, 'node_modules'));
    cpSync(join(dir, 'package.json'), join(runDir, 'package.json'));
    const built = spawnSync(process.execPath, [join(dir, 'scripts', 'build.ts'), join(runDir, 'dist')], {
      cwd: dir,
      encoding: 'utf8',
    });
    if (built.status !== 0) throw new Error(`building ${dir} failed:\n${built.stdout}${built.stderr}`);
  }
  const { OPTIONS } = (await import(join(dir, 'src', 'options.ts'))) as {
    OPTIONS: readonly { flag: string; env: string }[];
  };
  return { label, dir, runDir, envByFlag: new Map(OPTIONS.map((o) => [o.flag, o.env])) };
}

/** Env for whichever of these options the tree's controller has (an option may be named otherwise there). */
export function controllerEnv(tree: ControllerTree, values: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [flag, value] of Object.entries(values)) {
    const name = tree.envByFlag.get(flag);
    if (name !== undefined) env[name] = value;
  }
  return env;
}
