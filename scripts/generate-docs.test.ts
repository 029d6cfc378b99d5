import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../src/options.ts';
import { REPO_ROOT } from './generate.ts';
import { docFiles } from './generate-docs.ts';

describe('generated docs', () => {
  it.each(docFiles().map((f) => [f.path, f.content]))(
    '%s is up to date (run `make generate`)',
    (path, content) => {
      expect(readFileSync(join(REPO_ROOT, path), 'utf8')).toBe(content);
    },
  );

  it('documents every controller option', () => {
    const config = docFiles().find((f) => f.path === 'docs/configuration.md')?.content ?? '';
    for (const o of OPTIONS) expect(config).toContain(o.env);
  });

  it('documents spec and status fields of both kinds', () => {
    const api = docFiles().find((f) => f.path === 'docs/api-reference.md')?.content ?? '';
    for (const field of [
      'spec.sourceConfig.resourceSpec.cpu',
      'spec.secrets[].valueFrom',
      'status.conditions',
      'spec.templateName',
    ]) {
      expect(api).toContain(`\`${field}\``);
    }
  });
});
