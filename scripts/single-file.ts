/**
 * `make single-file`: kubectl-agd as one executable per platform that needs no Node.js on the machine,
 * each in a .tar.gz (with kubectl_complete-agd, a link to it), their SHA256SUMS, and the krew manifest
 * agd.yaml naming each archive's URL and sha256. Node.js's single executable applications: the CLI
 * bundled into one CommonJS file (scripts/single-file/bundle.ts), made a blob by the pinned Node.js
 * (`--experimental-sea-config`), and injected with postject into a copy of that Node.js's binary for
 * each platform (scripts/single-file/node-binary.ts). A Mach-O binary must be signed again after the
 * injection, so darwin-arm64 is built on a Mac (codesign), as docs/plan-and-import.md says.
 *
 * Usage: node scripts/single-file.ts [--platforms linux-amd64,linux-arm64] [--out DIR] [--base-url URL]
 *   --base-url: where the archives are published; {{version}} is replaced by v<version>
 *   (default: the GitHub release of that tag).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { assetFiles, bundleCli } from './single-file/bundle.ts';
import {
  archiveName,
  BIN,
  type BuiltArchive,
  krewManifest,
  krewProblems,
  PLUGIN_NAME,
} from './single-file/krew.ts';
import {
  hostPlatform,
  nodeBinary,
  nodePin,
  type Platform,
  parsePlatform,
  pinnedNodeVersion,
  platformName,
} from './single-file/node-binary.ts';
import { checkBinary } from './single-file/node-checksums.ts';
import { tarGz } from './single-file/tar.ts';

const REPO = resolve(import.meta.dirname, '..');
const NODE = join(REPO, 'node_modules', '.bin', 'node');
/** The fuse Node.js looks for to know a blob was injected (its SEA documentation names it). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const DEFAULT_BASE_URL =
  'https://github.com/agents-dev/agent-deployment-operator/releases/download/{{version}}';
/**
 * kubectl runs kubectl_complete-agd beside kubectl-agd to complete `kubectl agd`. A script, not a link:
 * krew refuses archives that hold links (kubernetes-sigs/krew#359). Without a slash in $0 (run as
 * `sh kubectl_complete-agd`), the directory is the current one.
 */
const COMPLETE = 'kubectl_complete-agd';
const COMPLETE_SCRIPT = `#!/bin/sh
case $0 in */*) dir=\${0%/*} ;; *) dir=. ;; esac
exec "$dir/${BIN}" __complete "$@"
`;

type Inject = (file: string, name: string, data: Buffer, options: Record<string, string>) => Promise<void>;
// postject ships no types.
const { inject } = createRequire(import.meta.url)('postject') as { inject: Inject };

function run(command: string, args: string[], cwd?: string): void {
  const result = spawnSync(command, args, { encoding: 'utf8', cwd });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status}): ${result.stderr}`);
}

/**
 * The SEA blob of the bundled CLI: platform-independent (no code cache, no snapshot). Paths relative
 * to the work directory, so that its random name is not in the blob: the same sources give the same
 * archive bytes, and so the same sha256.
 */
async function seaBlob(work: string): Promise<Buffer> {
  await bundleCli(join(work, 'kubectl-agd.cjs'));
  writeFileSync(
    join(work, 'sea-config.json'),
    JSON.stringify({
      main: 'kubectl-agd.cjs',
      output: 'sea.blob',
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache: false,
      assets: assetFiles(),
    }),
  );
  run(NODE, ['--experimental-sea-config', 'sea-config.json'], work);
  return readFileSync(join(work, 'sea.blob'));
}

/** One platform's executable, injected into a copy of its Node.js binary (checked: nodeBinary). */
async function executable(platform: Platform, node: string, blob: Buffer, out: string): Promise<void> {
  const darwin = platform.os === 'darwin';
  if (darwin && process.platform !== 'darwin')
    throw new Error(
      `${platformName(platform)}: a macOS executable must be signed again after the injection (codesign): build it on a Mac`,
    );
  copyFileSync(node, out);
  // The copy is what is packed: checked again, so nothing changed between the check and the copy.
  checkBinary(out, nodePin(platform));
  chmodSync(out, 0o755);
  if (darwin) run('codesign', ['--remove-signature', out]);
  // postject's LIEF prints "Can't find string offset for section name '.note.100'" for Node.js's ELF
  // notes: harmless, as Node.js's SEA documentation says; the test runs the result.
  await inject(out, 'NODE_SEA_BLOB', blob, {
    sentinelFuse: SEA_FUSE,
    ...(darwin ? { machoSegmentName: 'NODE_SEA' } : {}),
  });
  if (darwin) run('codesign', ['--sign', '-', out]);
}

export interface SingleFileResult {
  archives: (BuiltArchive & { path: string })[];
  manifest: string;
}

export async function buildSingleFiles(
  platforms: readonly Platform[],
  outDir: string,
  baseUrl = DEFAULT_BASE_URL,
): Promise<SingleFileResult> {
  const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string })
    .version;
  const work = mkdtempSync(join(tmpdir(), 'kubectl-agd-single-file-'));
  try {
    // Every Node.js binary checked against its pin first: a mismatch fails the build before anything is made.
    const nodes = new Map(platforms.map((p) => [p, nodeBinary(p)]));
    mkdirSync(outDir, { recursive: true });
    const blob = await seaBlob(work);
    const archives: SingleFileResult['archives'] = [];
    for (const platform of platforms) {
      const exe = join(work, `${BIN}-${platformName(platform)}`);
      await executable(platform, nodes.get(platform) as string, blob, exe);
      const file = archiveName(platform);
      const path = join(outDir, file);
      const archive = tarGz([
        { name: BIN, mode: 0o755, data: readFileSync(exe) },
        { name: COMPLETE, mode: 0o755, data: Buffer.from(COMPLETE_SCRIPT) },
      ]);
      writeFileSync(path, archive);
      rmSync(exe);
      archives.push({ platform, file, path, sha256: createHash('sha256').update(archive).digest('hex') });
    }
    const manifest = krewManifest(version, archives, baseUrl);
    const problems = krewProblems(manifest, PLUGIN_NAME);
    if (problems.length > 0) throw new Error(`the krew manifest breaks krew's rules: ${problems.join('; ')}`);
    writeFileSync(join(outDir, `${PLUGIN_NAME}.yaml`), manifest);
    writeFileSync(join(outDir, 'SHA256SUMS'), archives.map((a) => `${a.sha256}  ${a.file}\n`).join(''));
    return { archives, manifest };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      platforms: { type: 'string' },
      out: { type: 'string', default: join(REPO, 'dist', 'single-file') },
      'base-url': { type: 'string', default: DEFAULT_BASE_URL },
    },
  });
  const host = hostPlatform();
  const defaults = ['linux-amd64', 'linux-arm64', ...(host?.os === 'darwin' ? [platformName(host)] : [])];
  const platforms = (values.platforms?.split(',') ?? defaults).map((name) => parsePlatform(name.trim()));
  process.stdout.write(`Node.js ${pinnedNodeVersion()}: ${platforms.map(platformName).join(', ')}\n`);
  const result = await buildSingleFiles(platforms, resolve(values.out), values['base-url']);
  for (const a of result.archives) process.stdout.write(`${a.sha256}  ${a.path}\n`);
  process.stdout.write(`krew manifest: ${join(resolve(values.out), `${PLUGIN_NAME}.yaml`)}\n`);
}
