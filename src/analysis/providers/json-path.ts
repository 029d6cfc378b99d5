/**
 * The web provider's jsonPath, in Argo Rollouts' form (`{$.errorRate}`; the braces may be left out), a
 * small subset of JSONPath: `$` (the whole answer), `.field`, `['field']` or `["field"]` (any name, `\`
 * escaping a quote or a backslash) and `[n]` (the n-th item of a list, from 0). No wildcards, filters,
 * slices or recursive descent: a path selects one value.
 */

export type PathSegment = { field: string } | { index: number };

const FIELD = /^[A-Za-z_][A-Za-z0-9_-]*/;
const INDEX = /^\[(\d{1,9})\]/;

/** The path's segments, or why it is not one (a sentence). */
export function parseJsonPath(path: string): PathSegment[] | { problem: string } {
  let rest = path.trim();
  if (rest.startsWith('{') && rest.endsWith('}')) rest = rest.slice(1, -1).trim();
  if (!rest.startsWith('$')) return { problem: 'must start with $ (for example {$.errorRate})' };
  rest = rest.slice(1);
  const segments: PathSegment[] = [];
  while (rest !== '') {
    if (rest.startsWith('.')) {
      const name = FIELD.exec(rest.slice(1))?.[0];
      if (!name) return { problem: `has a . not followed by a field name at "${rest.slice(0, 20)}"` };
      segments.push({ field: name });
      rest = rest.slice(1 + name.length);
      continue;
    }
    const index = INDEX.exec(rest);
    if (index) {
      segments.push({ index: Number(index[1]) });
      rest = rest.slice(index[0].length);
      continue;
    }
    const quoted = quotedField(rest);
    if (!quoted) {
      return {
        problem: `supports only $, .field, ['field'] and [n]; it does not read "${rest.slice(0, 20)}"`,
      };
    }
    segments.push({ field: quoted.field });
    rest = rest.slice(quoted.length);
  }
  return segments;
}

/** `['name']` or `["name"]` at the start of `text`: the name and the characters it took. */
function quotedField(text: string): { field: string; length: number } | undefined {
  const quote = text[1];
  if (text[0] !== '[' || (quote !== "'" && quote !== '"')) return undefined;
  let field = '';
  for (let i = 2; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\' && i + 1 < text.length) {
      field += text[++i];
    } else if (c === quote) {
      return text[i + 1] === ']' ? { field, length: i + 2 } : undefined;
    } else {
      field += c;
    }
  }
  return undefined;
}

/** The value the segments select, or undefined when the answer has nothing there. */
export function selectJsonPath(value: unknown, segments: readonly PathSegment[]): unknown {
  let at: unknown = value;
  for (const s of segments) {
    if ('index' in s) {
      if (!Array.isArray(at) || s.index >= at.length) return undefined;
      at = at[s.index];
    } else {
      if (typeof at !== 'object' || at === null || Array.isArray(at) || !Object.hasOwn(at, s.field)) {
        return undefined;
      }
      at = (at as Record<string, unknown>)[s.field];
    }
  }
  return at;
}
