import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cel, freeForm, quantity, stringMap } from './common.ts';
import { toStructural } from './structural.ts';

const property = (schema: z.ZodType) =>
  (toStructural(z.object({ p: schema })).properties as Record<string, unknown>).p;

describe('toStructural', () => {
  it.each<[string, z.ZodType, unknown]>([
    [
      'a described string',
      z.string().max(5).describe('S.'),
      { description: 'S.', type: 'string', maxLength: 5 },
    ],
    [
      'an integer without the safe-integer bounds',
      z.int().min(0).describe('I.'),
      { description: 'I.', type: 'integer', minimum: 0 },
    ],
    [
      'a quantity as int-or-string',
      quantity().describe('Q.'),
      {
        description: 'Q.',
        anyOf: [{ type: 'integer' }, { type: 'string' }],
        pattern: expect.stringContaining('[KMGTPE]i'),
        'x-kubernetes-int-or-string': true,
      },
    ],
    [
      'a free-form object',
      freeForm().describe('F.'),
      { description: 'F.', type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    ],
    [
      'a string map without propertyNames',
      stringMap().describe('M.'),
      {
        description: 'M.',
        type: 'object',
        maxProperties: 64,
        additionalProperties: { type: 'string', maxLength: 4096 },
        'x-kubernetes-validations': [
          { rule: 'self.all(k, size(k) <= 317)', message: 'keys must be at most 317 characters' },
        ],
      },
    ],
    [
      'CEL rules from metadata',
      z
        .number()
        .meta(cel({ rule: 'self > 0', message: 'must be positive' }))
        .describe('N.'),
      {
        description: 'N.',
        type: 'number',
        'x-kubernetes-validations': [{ rule: 'self > 0', message: 'must be positive' }],
      },
    ],
    [
      'a date-time without its pattern',
      z.iso.datetime().describe('T.'),
      { description: 'T.', type: 'string', format: 'date-time' },
    ],
    [
      'a default',
      z.enum(['A', 'B']).default('A').describe('E.'),
      { description: 'E.', type: 'string', enum: ['A', 'B'], default: 'A' },
    ],
  ])('converts %s', (_what, schema, expected) => {
    expect(property(schema)).toEqual(expected);
  });

  it('leaves defaulted fields out of required', () => {
    const schema = toStructural(
      z.object({ a: z.string(), b: z.string().default('x'), c: z.string().optional() }),
    );
    expect(schema.required).toEqual(['a']);
  });

  it.each<[string, z.ZodType]>([
    ['a nullable field', z.string().nullable()],
    ['a union that is not int-or-string', z.union([z.string(), z.boolean()])],
    ['an untyped record', z.record(z.string(), z.unknown())],
  ])('refuses %s', (_what, schema) => {
    expect(() => property(schema)).toThrow();
  });

  it('replaces the given nodes wholesale', () => {
    const meta = z.looseObject({ name: z.string() });
    const schema = toStructural(z.object({ metadata: meta }), new Map([[meta, { type: 'object' }]]));
    expect(schema.properties).toEqual({ metadata: { type: 'object' } });
  });
});
