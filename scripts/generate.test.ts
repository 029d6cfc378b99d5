import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { type JsonSchema, schemaProblems } from '../src/api/structural.ts';
import { generatedFiles, REPO_ROOT } from './generate.ts';

const files = generatedFiles();

/** Every key used anywhere in a JSON value. */
function keysIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysIn(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      keysIn(v, into);
    }
  }
  return into;
}

function openApiSchema(content: string): JsonSchema {
  const crd = yaml.load(content) as { spec: { versions: { schema: { openAPIV3Schema: JsonSchema } }[] } };
  const version = crd.spec.versions[0];
  if (!version) throw new Error('no version');
  return version.schema.openAPIV3Schema;
}

describe('generated CRDs', () => {
  it('crds/ holds exactly the generated files (run `make generate` when this fails)', () => {
    const onDisk = readdirSync(join(REPO_ROOT, 'crds')).map((f) => `crds/${f}`);
    expect(onDisk.sort()).toEqual(files.map((f) => f.path).sort());
  });

  it.each(files.map((f) => [f.path, f.content]))(
    '%s is up to date (run `make generate`)',
    (path, content) => {
      expect(readFileSync(join(REPO_ROOT, path), 'utf8')).toBe(content);
    },
  );

  it.each(files.map((f) => [f.path, f.content]))(
    '%s starts with the do-not-edit header',
    (_path, content) => {
      expect(content.split('\n')[0]).toContain('DO NOT EDIT');
      expect(content).toContain('make generate');
    },
  );

  it.each(files.map((f) => [f.path, f.content]))('%s describes every property', (_path, content) => {
    expect(schemaProblems(openApiSchema(content))).toEqual([]);
  });

  it.each(files.map((f) => [f.path, f.content]))(
    "%s fits client-side apply's last-applied annotation (256 KiB for all annotations)",
    (_path, content) => {
      expect(JSON.stringify(yaml.load(content)).length).toBeLessThan(256 * 1024);
    },
  );

  it.each(files.map((f) => [f.path, f.content]))(
    '%s uses no keyword a structural schema forbids',
    (_path, c) => {
      const keys = keysIn(openApiSchema(c));
      for (const forbidden of [
        '$ref',
        '$schema',
        'oneOf',
        'allOf',
        'not',
        'const',
        'nullable',
        'propertyNames',
      ]) {
        expect(keys.has(forbidden), forbidden).toBe(false);
      }
    },
  );
});

describe('schemaProblems', () => {
  it.each<[string, JsonSchema, string[]]>([
    [
      'a described property',
      { type: 'object', properties: { a: { type: 'string', description: 'A.' } } },
      [],
    ],
    [
      'a property without description',
      { type: 'object', properties: { a: { type: 'string' } } },
      ['.a: no description'],
    ],
    [
      'a nested property without description',
      {
        type: 'object',
        properties: {
          a: { description: 'A.', type: 'array', items: { type: 'object', properties: { b: {} } } },
        },
      },
      ['.a[].b: no description'],
    ],
    ['a $ref', { type: 'object', $ref: '#/x' }, ['<root>: keyword $ref']],
    ['anyOf outside int-or-string', { anyOf: [{ type: 'string' }] }, ['<root>: keyword anyOf']],
    [
      'the int-or-string anyOf',
      { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
      [],
    ],
    [
      'the root metadata without description',
      { type: 'object', properties: { metadata: { type: 'object' } } },
      [],
    ],
  ])('%s', (_what, schema, expected) => {
    expect(schemaProblems(schema)).toEqual(expected);
  });
});
