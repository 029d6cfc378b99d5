import { describe, expect, it } from 'vitest';
import { type JsonSchema, toStructural } from '../structural.ts';
import { kubeDescription, kubeObject } from './native.ts';
import { CORE_V1, readSnapshot } from './openapi.ts';

const served = readSnapshot().schemas;
const structural = (name: string) => toStructural(kubeObject(`${CORE_V1}${name}`));

/** The node at a dotted path of properties (`[]` steps into items, `{}` into additionalProperties). */
function node(schema: JsonSchema, path: string): JsonSchema {
  let current = schema;
  for (const step of path.split('.')) {
    if (step === '[]') current = current.items as JsonSchema;
    else if (step === '{}') current = current.additionalProperties as JsonSchema;
    else current = (current.properties as Record<string, JsonSchema>)[step] as JsonSchema;
  }
  return current;
}

describe('Kubernetes schemas as zod', () => {
  it.each<[string, string, string, JsonSchema]>([
    ['required fields stay required', 'VolumeMount', 'mountPath', { type: 'string' }],
    [
      'enums stay enums',
      'VolumeMount',
      'mountPropagation',
      { type: 'string', enum: ['Bidirectional', 'HostToContainer', 'None'] },
    ],
    ['int32 stays an integer', 'ConfigMapVolumeSource', 'defaultMode', { type: 'integer' }],
    [
      'a Quantity is a Kubernetes quantity (int or string)',
      'EmptyDirVolumeSource',
      'sizeLimit',
      { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
    ],
    [
      'an IntOrString is int or string',
      'TCPSocketAction',
      'port',
      { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
    ],
    [
      'list semantics are kept',
      'Container',
      'env',
      { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
    ],
  ])('%s (%s.%s)', (_what, type, field, expected) => {
    expect(node(structural(type), field)).toMatchObject(expected);
  });

  it('keeps every field and its description', () => {
    const security = served[`${CORE_V1}SecurityContext`] as {
      properties: Record<string, { description: string }>;
    };
    const schema = structural('SecurityContext');
    expect(Object.keys(schema.properties as object).sort()).toEqual(Object.keys(security.properties).sort());
    for (const [field, { description }] of Object.entries(security.properties)) {
      expect(node(schema, field).description, field).toBe(description);
    }
  });

  it('carries no defaults: a CRD must not invent values the object does not carry', () => {
    expect(JSON.stringify(structural('Container'))).not.toContain('"default"');
    expect(JSON.stringify(served[`${CORE_V1}Container`])).toContain('"default"');
  });

  it('the required list matches the served one', () => {
    expect(structural('KeyToPath').required).toEqual(['key', 'path']);
  });

  it('kubeDescription reads a field description', () => {
    expect(kubeDescription(kubeObject(`${CORE_V1}EnvVar`), 'name')).toMatch(
      /^Name of the environment variable/,
    );
  });

  it('refuses a type that is not an object', () => {
    expect(() => kubeObject('io.k8s.apimachinery.pkg.api.resource.Quantity')).toThrow('not an object type');
  });
});
