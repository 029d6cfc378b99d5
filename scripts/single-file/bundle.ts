/**
 * The CLI as one CommonJS file for a Node.js single executable application (Node.js 24 runs a single
 * CommonJS script there, whose require() reaches only the built-in modules): rolldown bundles
 * entry.ts with every dependency. Each module's import.meta.dirname becomes its directory under
 * ASSET_ROOT (assets.ts serves reads there), import.meta.main is false (entry.ts runs the CLI), and
 * the createRequire of undici.ts and kubeconfig.ts goes, so that their require() calls are bundled too.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build } from 'rolldown';
import { ASSET_ROOT } from './assets.ts';

const REPO = join(import.meta.dirname, '..', '..');
const SRC = join(REPO, 'src');

/** The files modules read beside themselves, by asset name: package.json and src/**.json. */
export function assetFiles(): Record<string, string> {
  const assets: Record<string, string> = { 'package.json': join(REPO, 'package.json') };
  for (const entry of readdirSync(SRC, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
    const path = join(entry.parentPath, entry.name);
    assets[relative(REPO, path)] = path;
  }
  return assets;
}

export async function bundleCli(outFile: string): Promise<void> {
  await build({
    input: join(import.meta.dirname, 'entry.ts'),
    platform: 'node',
    logLevel: 'warn',
    plugins: [
      {
        name: 'single-file-paths',
        transform(code, id) {
          if (!id.startsWith(SRC)) return null;
          const dir = JSON.stringify(`${ASSET_ROOT}/${relative(REPO, dirname(id))}`);
          return code
            .replaceAll('import.meta.dirname', dir)
            .replaceAll('import.meta.main', 'false')
            .replace(/const require = createRequire\(import\.meta\.url\);/, '');
        },
      },
    ],
    output: { format: 'cjs', file: outFile, codeSplitting: false, minify: false },
  });
}
