import { describe, expect, it } from 'vitest';
import { type OpenApiSchema, ROOT_SCHEMAS, readSnapshot, schemaClosure } from './openapi.ts';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('schemaClosure', () => {
  const all: Record<string, OpenApiSchema> = {
    A: { type: 'object', properties: { b: { allOf: [ref('B')] }, c: { type: 'array', items: ref('C') } } },
    B: { type: 'object', properties: { a: ref('A') } },
    C: { type: 'string' },
    D: { type: 'string' },
  };

  it.each<[string, string[], string[]]>([
    ['follows $ref through allOf, items and cycles', ['A'], ['A', 'B', 'C']],
    ['a leaf alone', ['C'], ['C']],
    ['several roots, in name order', ['D', 'C'], ['C', 'D']],
  ])('%s', (_what, roots, expected) => {
    expect(Object.keys(schemaClosure(all, roots))).toEqual(expected);
  });

  it('refuses a $ref to a schema the document lacks', () => {
    expect(() => schemaClosure({ A: ref('Z') }, ['A'])).toThrow('schema Z is not in the document');
  });
});

describe('the committed snapshot', () => {
  it('holds the closure of every root schema, and nothing else', () => {
    const { schemas } = readSnapshot();
    expect(Object.keys(schemaClosure(schemas, ROOT_SCHEMAS))).toEqual(Object.keys(schemas));
  });
});
