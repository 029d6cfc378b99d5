import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, packagingFiles, REPO_ROOT } from './generate-packaging.ts';

describe('generated packaging files', () => {
  it.each(packagingFiles().map((f) => [f.path, f.content]))(
    '%s is up to date (run node scripts/generate-packaging.ts)',
    (path, content) => {
      expect(readFileSync(join(REPO_ROOT, path), 'utf8')).toBe(content);
    },
  );

  it.each(['manifests/crds', `${CHART_DIR}/crds`])('%s holds exactly the generated CRDs', (dir) => {
    const copies = readdirSync(join(REPO_ROOT, dir)).filter((f) => f !== 'kustomization.yaml');
    expect(copies.sort()).toEqual(readdirSync(join(REPO_ROOT, 'crds')).sort());
  });
});
