/**
 * A value reduced to the fields its zod schema names, at every depth. Response schemas are loose (a field
 * the service adds later is not fatal), but what the controller keeps in memory for long (the batched
 * poll's snapshots) must not grow with whatever a server chooses to add.
 */
import { z } from 'zod';

export function knownFields<T>(schema: z.ZodType<T>, value: T): T {
  return project(schema, value) as T;
}

function project(schema: z.ZodType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault) {
    return project(schema.unwrap() as z.ZodType, value);
  }
  if (schema instanceof z.ZodArray) {
    return Array.isArray(value) ? value.map((item) => project(schema.element as z.ZodType, item)) : value;
  }
  if (schema instanceof z.ZodObject && typeof value === 'object' && !Array.isArray(value)) {
    const shape = schema.shape as Record<string, z.ZodType>;
    const out: Record<string, unknown> = {};
    // for...in, not Object.entries: no entry arrays per field of every deployment read.
    for (const key in shape) {
      if (key in value) out[key] = project(shape[key] as z.ZodType, (value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}
