/**
 * An RFC 7386 merge patch turning one status into another. A merge patch merges nested objects and
 * leaves absent keys alone, so it recurses: a key removed at any depth is sent as null, a changed leaf
 * as itself; arrays (conditions) are replaced whole.
 */
import { sameJson } from '../lib/canonical-json.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function statusMergePatch(before: object, after: object): Json {
  const b = before as Json;
  const a = after as Json;
  const patch: Json = {};
  // for...in: no entry arrays per key (every pass compares its status; JSON objects inherit no keys).
  for (const key in b) {
    if (a[key] === undefined && b[key] !== undefined) patch[key] = null;
  }
  for (const key in a) {
    const value = a[key];
    if (value === undefined) continue;
    const old = b[key];
    if (isObject(value) && isObject(old)) {
      const nested = statusMergePatch(old, value);
      if (Object.keys(nested).length > 0) patch[key] = nested;
    } else if (!sameJson(value, old)) {
      patch[key] = value;
    }
  }
  return patch;
}

/** `patch` (a merge patch of a status) applied to a copy of `target`, as the API server applies it. */
export function applyMergePatch(target: object, patch: object): Json {
  const out: Json = { ...(target as Json) };
  for (const key in patch) {
    const value = (patch as Json)[key];
    if (value === null) delete out[key];
    else if (isObject(value) && isObject(out[key])) out[key] = applyMergePatch(out[key] as Json, value);
    else out[key] = structuredClone(value);
  }
  return out;
}
