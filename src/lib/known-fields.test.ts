import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Deployment } from '../controlplane/schemas.ts';
import { knownFields } from './known-fields.ts';

describe('knownFields', () => {
  const Shape = z
    .object({
      id: z.string(),
      nested: z
        .object({ a: z.number(), list: z.array(z.object({ b: z.string() }).loose()) })
        .loose()
        .nullable()
        .optional(),
      maybe: z.string().optional(),
    })
    .loose();

  it.each<[string, unknown, unknown]>([
    ['drops unknown top-level fields', { id: 'x', junk: 'y'.repeat(100) }, { id: 'x' }],
    [
      'drops unknown fields at every depth, arrays included',
      { id: 'x', nested: { a: 1, extra: true, list: [{ b: 'k', more: 1 }] } },
      { id: 'x', nested: { a: 1, list: [{ b: 'k' }] } },
    ],
    ['keeps null and absent as they are', { id: 'x', nested: null }, { id: 'x', nested: null }],
    ['keeps optional fields that are there', { id: 'x', maybe: 'm' }, { id: 'x', maybe: 'm' }],
  ])('%s', (_case, input, expected) => {
    expect(knownFields(Shape, Shape.parse(input))).toEqual(expected);
  });

  it('keeps every field of a deployment the document names', () => {
    const deployment = Deployment.parse({
      id: 'd-1',
      name: 'agent',
      source: 'external_image',
      source_config: { listener_id: 'l-1', resource_spec: { cpu: 1, padding: 'x' }, padding: 'x' },
      source_revision_config: { image_uri: 'i:1', padding: 'x' },
      secrets: [{ name: 'A', value: 'v', padding: 'x' }],
      created_at: 't',
      updated_at: 't',
      status: 'READY',
      latest_revision_id: null,
      active_revision_id: null,
      padding: 'x'.repeat(10_000),
    });
    expect(JSON.stringify(knownFields(Deployment, deployment))).not.toContain('padding');
    expect(knownFields(Deployment, deployment)).toMatchObject({
      id: 'd-1',
      source_config: { listener_id: 'l-1', resource_spec: { cpu: 1 } },
      source_revision_config: { image_uri: 'i:1' },
      secrets: [{ name: 'A', value: 'v' }],
    });
  });
});
