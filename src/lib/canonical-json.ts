/** JSON with object keys sorted (undefined dropped), so key order never reads as a change. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    // Without a prototype, a key named __proto__ is a key like any other. No [key, value] pairs: each
    // costs an array and its iterator under the image's baseline compiler.
    const out: Record<string, unknown> = Object.create(null);
    const keys = Object.keys(value).sort();
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      out[key] = sortKeys((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

/**
 * Whether two values of plain JSON data (objects, arrays, strings, numbers, booleans, null) have the
 * same canonicalJson, without building either text: every pass compares the status it would write
 * with the stored one, and turning two sorted copies into text costs several times the walk (for a
 * settled AgentDeployment's status under the image's baseline compiler, about six times).
 */
export function sameJson(x: unknown, y: unknown): boolean {
  const a = written(x);
  const b = written(y);
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    // In an array, undefined is written as null.
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (a !== null && typeof a === 'object') {
    if (b === null || typeof b !== 'object' || Array.isArray(b)) return false;
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    // Own keys are written, except those whose value is undefined.
    let defined = 0;
    for (const key in left) {
      if (!Object.hasOwn(left, key) || left[key] === undefined) continue;
      defined++;
      if (!Object.hasOwn(right, key) || right[key] === undefined || !sameJson(left[key], right[key]))
        return false;
    }
    for (const key in right) if (Object.hasOwn(right, key) && right[key] !== undefined) defined--;
    return defined === 0;
  }
  return false;
}

/** Numbers JSON cannot write are written as null. */
const written = (value: unknown): unknown =>
  typeof value === 'number' && !Number.isFinite(value) ? null : value;
