/**
 * Inside the single-file kubectl-agd (scripts/single-file.ts) there is no directory beside the modules:
 * the files they read beside themselves (package.json, src/api/kubernetes/core-v1.openapi.json) are the
 * executable's SEA assets. The bundler rewrites each module's `import.meta.dirname` to its directory
 * under ASSET_ROOT, and this module, evaluated before any other, answers readFileSync of a path there
 * from the asset of that name. Every other path is read from disk as usual.
 */
import fs from 'node:fs';
import { getAsset, isSea } from 'node:sea';

/** A path no disk has: what import.meta.dirname is replaced with (plus the module's directory). */
export const ASSET_ROOT = '/$kubectl-agd-assets';

if (isSea()) {
  const readFromDisk = fs.readFileSync;
  const readFileSync = (path: fs.PathOrFileDescriptor, options?: unknown): string | Buffer => {
    if (typeof path === 'string' && path.startsWith(`${ASSET_ROOT}/`)) {
      const bytes = Buffer.from(getAsset(path.slice(ASSET_ROOT.length + 1)));
      const encoding = typeof options === 'string' ? options : (options as { encoding?: string })?.encoding;
      return encoding ? bytes.toString(encoding as BufferEncoding) : bytes;
    }
    return readFromDisk(path, options as fs.ObjectEncodingOptions);
  };
  fs.readFileSync = readFileSync as typeof fs.readFileSync;
}
