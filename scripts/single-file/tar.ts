/**
 * A .tar.gz of a few files, the same bytes for the same files on every machine (no time, owner or
 * order taken from the disk), so an archive's sha256 in the krew manifest can be checked by
 * rebuilding it. ustar format, regular files only (krew unpacks nothing else).
 */
import { gzipSync } from 'node:zlib';

export interface TarEntry {
  name: string;
  mode: number;
  data: Buffer;
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(entry: TarEntry): Buffer {
  const block = Buffer.alloc(BLOCK);
  if (Buffer.byteLength(entry.name) > 100) throw new Error(`tar: name over 100 bytes: ${entry.name}`);
  block.write(entry.name, 0, 'utf8');
  block.write(octal(entry.mode, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii'); // uid
  block.write(octal(0, 8), 116, 'ascii'); // gid
  block.write(octal(entry.data.length, 12), 124, 'ascii');
  block.write(octal(0, 12), 136, 'ascii'); // mtime: the epoch, for the same bytes every build
  block.write(' '.repeat(8), 148, 'ascii'); // checksum, counted as spaces
  block.write('0', 156, 'ascii');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

export function tarGz(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
    parts.push(header(entry), entry.data);
    parts.push(Buffer.alloc((BLOCK - (entry.data.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  const gz = gzipSync(Buffer.concat(parts), { level: 9 });
  gz[9] = 3; // the gzip header's OS byte: Unix, whichever system's zlib wrote it
  return gz;
}
