import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { CustomResourceDefinition } from '../../api/crds.ts';
import type { InputObject } from '../model.ts';
import { offlineValidator } from './crd-validator.ts';

/** A small CRD with one of each check, so each is tested on its own. */
const WIDGET = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com', annotations: {} },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        schema: {
          openAPIV3Schema: {
            type: 'object',
            required: ['spec'],
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 10 },
                  ratio: {
                    type: 'number',
                    'x-kubernetes-validations': [{ rule: 'self >= 0.5', message: 'ratio is at least 0.5' }],
                  },
                  mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
                  name: {
                    type: 'string',
                    maxLength: 5,
                    pattern: '^[a-z]+$',
                    'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }],
                  },
                  cpu: {
                    anyOf: [{ type: 'integer' }, { type: 'string' }],
                    'x-kubernetes-int-or-string': true,
                  },
                  tags: {
                    type: 'array',
                    maxItems: 2,
                    items: { type: 'string' },
                    'x-kubernetes-list-type': 'set',
                  },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 3 } },
                  items: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: { name: { type: 'string' }, value: { type: 'string' } },
                      'x-kubernetes-validations': [
                        {
                          rule: 'has(self.value)',
                          message: 'value is required',
                          messageExpression: "'item ' + self.name + ' needs a value'",
                          reason: 'FieldValueRequired',
                          fieldPath: '.value',
                        },
                      ],
                    },
                  },
                },
                'x-kubernetes-validations': [
                  {
                    rule: "self.mode != 'b' || has(self.name)",
                    reason: 'FieldValueForbidden',
                    fieldPath: '.mode',
                  },
                  { rule: "!has(self.name) || self.name.matches('^a')" },
                ],
              },
            },
          },
        },
      },
    ],
  },
} as unknown as CustomResourceDefinition;

const widget = (spec: Record<string, unknown>, name = 'w'): InputObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name },
  spec,
});

describe('offline validation, check by check', () => {
  const v = offlineValidator([WIDGET]);
  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['a valid object (mode defaulted, the transition rule not applied)', { size: 3, name: 'abc' }, undefined],
    ['a required field', {}, 'spec.size: Required value'],
    [
      'a wrong type, and the rules then not checked',
      { size: 'x' },
      'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
    ],
    ['a float for an integer', { size: 1.5 }, 'must be of type integer: "number"'],
    [
      'a maximum',
      { size: 11 },
      'spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10',
    ],
    ['a minimum', { size: 0 }, 'spec.size in body should be greater than or equal to 1'],
    ['an enum', { size: 1, mode: 'c' }, 'spec.mode: Unsupported value: "c": supported values: "a", "b"'],
    [
      'a maxLength (characters)',
      { size: 1, name: 'abcdef' },
      'spec.name: Too long: may not be more than 5 bytes',
    ],
    ['a pattern', { size: 1, name: 'a1' }, "spec.name in body should match '^[a-z]+$'"],
    ['int-or-string refuses a float', { size: 1, cpu: 0.5 }, 'must be of type integer,string'],
    ['maxItems', { size: 1, tags: ['a', 'b', 'c'] }, 'spec.tags: Too many: 3: must have at most 2 items'],
    ['a set with a duplicate', { size: 1, tags: ['a', 'a'] }, 'spec.tags[1]: Duplicate value: "a"'],
    ['an undeclared field', { size: 1, colour: 'red' }, 'spec.colour: field not declared in schema'],
    ['a map value', { size: 1, labels: { a: 'long' } }, 'spec.labels.a: Too long'],
    [
      'a CEL rule with a message, on a number given as an integer',
      { size: 1, ratio: 0 },
      'spec.ratio: Invalid value: 0: ratio is at least 0.5',
    ],
    [
      'a CEL rule without message: "failed rule", with reason and fieldPath',
      { size: 1, mode: 'b' },
      "spec.mode: Forbidden: failed rule: self.mode != 'b' || has(self.name)",
    ],
    [
      'a CEL rule with RE2 matches',
      { size: 1, name: 'bc' },
      "spec: Invalid value: failed rule: !has(self.name) || self.name.matches('^a')",
    ],
    [
      'messageExpression wins over message',
      { size: 1, items: [{ name: 'x' }] },
      'spec.items[0].value: Required value: item x needs a value',
    ],
  ])('%s', (_, spec, expected) => {
    const refusal = v.refusal(widget(spec));
    if (expected === undefined) expect(refusal).toBeUndefined();
    else expect(refusal).toContain(expected);
  });

  it('preserve-unknown-fields keeps anything; a null with a default takes it', () => {
    expect(v.refusal(widget({ size: 1, free: { any: { thing: 1 } }, mode: null }))).toBeUndefined();
  });

  it('a null without a default is a value of the wrong type', () => {
    expect(v.refusal(widget({ size: null }))).toContain(
      'spec.size: Invalid value: "null": spec.size in body must be of type integer: "null"',
    );
  });

  it('int-or-string of the wrong type: the anyOf and its first branch are listed too', () => {
    expect(v.refusal(widget({ size: 1, cpu: true }))).toBe(
      'Widget.example.com "w" is invalid: [spec.cpu: Invalid value: "boolean": spec.cpu in body must be of type integer,string: "boolean", <nil>: Invalid value: "": "spec.cpu" must validate at least one schema (anyOf), spec.cpu: Invalid value: "boolean": spec.cpu in body must be of type integer: "boolean", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
  });

  it('a name that is no DNS subdomain', () => {
    expect(v.refusal(widget({ size: 1 }, 'Bad_Name'))).toContain('metadata.name: Invalid value: "Bad_Name"');
  });

  it('one error alone; several in brackets, as the API server lists them', () => {
    expect(v.refusal(widget({ size: 11 }))).toBe(
      'Widget.example.com "w" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10',
    );
    expect(v.refusal(widget({ size: 0, mode: 'c' }))).toMatch(
      /is invalid: \[spec\.size: .*, spec\.mode: .*\]$/,
    );
  });

  it.each<[string, Record<string, unknown>]>([
    ['a wrong type', { size: 'x', mode: 'b' }],
    ['a value outside its enum', { size: 1, mode: 'c', ratio: 0 }],
    ['a missing required field', { mode: 'b' }],
    ['a string over its maxLength', { size: 1, name: 'abcdefg', mode: 'b' }],
    ['a list over its maxItems', { size: 1, tags: ['a', 'b', 'c'], ratio: 0 }],
  ])(
    'after %s the CEL rules are not evaluated, and the refusal says so, as the API server does',
    (_, spec) => {
      const errors = v.errors(widget(spec));
      expect(errors.filter((e) => e.detail?.startsWith('failed rule') || e.field === 'spec.ratio')).toEqual(
        [],
      );
      expect(v.refusal(widget(spec))).toContain(
        '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
      );
    },
  );

  it('undeclared fields are refused alone, in server-side apply words, as it refuses them before validating', () => {
    expect(v.refusal(widget({ size: 0, colour: 'red' }))).toBe(
      'failed to create typed patch object (w; example.com/v1, Kind=Widget): .spec.colour: field not declared in schema',
    );
  });

  it('a rule left out is not checked (what the agreement test uses to prove it can fail)', () => {
    const skipping = offlineValidator([WIDGET], new Set(['spec.ratio self >= 0.5']));
    expect(skipping.refusal(widget({ size: 1, ratio: 0 }))).toBeUndefined();
  });
});

describe('offline validation against the generated CRDs', () => {
  const examples = join(import.meta.dirname, '..', '..', '..', 'examples');
  const v = offlineValidator();
  it.each(readdirSync(examples))('%s is valid', (file) => {
    const docs = yaml.loadAll(readFileSync(join(examples, file), 'utf8')) as InputObject[];
    for (const doc of docs.filter((d) => d.apiVersion.startsWith('deploy.agents.dev/'))) {
      expect(v.refusal(doc)).toBeUndefined();
    }
  });

  it.each<[string, string, boolean]>([
    ['a plain name', 'research-agent', true],
    ['spaces and letters beyond ASCII', 'Recherche – agent 2', true],
    ['a newline (a second YAML document)', 'x\n---\nkind: ClusterRoleBinding', false],
    ['a terminal escape', 'x\u001b[2J', false],
    ['a C1 control (CSI)', 'x\u009b1A', false],
    ['a bidi override', 'agent\u202Egnp.exe', false],
    ['a line separator', 'a\u2028b', false],
  ])('spec.name, %s: accepted is %s', (_case, name, accepted) => {
    const obj = {
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'AgentDeployment',
      metadata: { name: 'a', namespace: 'ns' },
      spec: { name, source: 'external_image', sourceRevisionConfig: { imageUri: 'reg/a:1' } },
    };
    const refusal = v.refusal(obj);
    if (accepted) expect(refusal).toBeUndefined();
    else expect(refusal).toMatch(/spec\.name/);
  });

  it('an object of a kind no CRD serves is a bug, not a refusal', () => {
    expect(() => v.refusal({ apiVersion: 'x/v1', kind: 'Other', metadata: { name: 'a' } })).toThrow(
      'no CRD serves Other in x/v1',
    );
  });
});
