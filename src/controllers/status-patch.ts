/**
 * A JSON merge patch turning one status into another: changed and new fields as they are, removed
 * fields as null (a merge patch leaves absent fields alone), arrays such as conditions whole.
 */
export function statusMergePatch(before: object, after: object): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  for (const key of Object.keys(b)) if (!(key in a) || a[key] === undefined) patch[key] = null;
  for (const [key, value] of Object.entries(a)) {
    if (value !== undefined && JSON.stringify(value) !== JSON.stringify(b[key])) patch[key] = value;
  }
  return patch;
}
