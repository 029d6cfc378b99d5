/** Dotted paths into plain JSON values, and the wire's snake_case names as the spec's camelCase. */

/**
 * The value at a dotted path. Walking through an absent (undefined) parent gives undefined, "not
 * there to compare"; through a null parent gives null, a value the other side stated.
 */
export function valueAt(root: unknown, path: string): unknown {
  let value: unknown = root;
  for (const key of path.split('.')) {
    if (value === undefined || value === null) return value;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export const snakeToCamel = (key: string): string =>
  key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
