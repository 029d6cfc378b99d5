/**
 * Kubernetes label selectors in their string form (`a=b,c!=d,e in (x,y),f notin (z),g,!h`), parsed once
 * and matched against a label map, as the API server matches them.
 */

export type Requirement =
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'doesnotexist' };

export interface LabelSelector {
  readonly requirements: readonly Requirement[];
  matches(labels: Record<string, string> | undefined): boolean;
}

export class LabelSelectorError extends Error {}

// A qualified name with an optional DNS-subdomain prefix; values may be empty.
const KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Splits on commas outside parentheses. */
function terms(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((t) => t.trim()).filter(Boolean);
}

function requirementOf(term: string): Requirement {
  const refuse = (rule: string) => new LabelSelectorError(`"${term}": ${rule}`);
  const key = (k: string) => {
    if (!KEY.test(k)) throw refuse(`"${k}" is not a label key`);
    return k;
  };
  const value = (v: string) => {
    if (!VALUE.test(v) || v.length > 63) throw refuse(`"${v}" is not a label value`);
    return v;
  };
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (set) {
    const values = (set[3] as string).split(',').map((v) => value(v.trim()));
    return { key: key(set[1] as string), op: set[2] as 'in' | 'notin', values };
  }
  const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
  if (eq) {
    return {
      key: key(eq[1] as string),
      op: eq[2] === '!=' ? 'notin' : 'in',
      values: [value(eq[3] as string)],
    };
  }
  if (/[=()]|\s/.test(term.replace(/^!\s*/, ''))) {
    throw refuse('write key=value, key!=value, key in (a,b), key notin (a,b), key or !key');
  }
  if (term.startsWith('!')) return { key: key(term.slice(1).trim()), op: 'doesnotexist' };
  return { key: key(term), op: 'exists' };
}

function matchesRequirement(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.op) {
    case 'exists':
      return has;
    case 'doesnotexist':
      return !has;
    case 'in':
      return has && r.values.includes(labels[r.key] as string);
    case 'notin':
      return !has || !r.values.includes(labels[r.key] as string);
  }
}

/** Throws LabelSelectorError naming the term that breaks the syntax. An empty selector matches everything. */
export function parseLabelSelector(selector: string): LabelSelector {
  const requirements = terms(selector).map(requirementOf);
  return {
    requirements,
    matches: (labels) => requirements.every((r) => matchesRequirement(r, labels ?? {})),
  };
}

/** A metav1.LabelSelector's shape (matchLabels AND every matchExpression). */
export interface StructuredSelector {
  matchLabels?: Record<string, string> | undefined;
  matchExpressions?:
    | readonly {
        key: string;
        operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
        values?: readonly string[] | undefined;
      }[]
    | undefined;
}

const OPERATORS = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: 'doesnotexist' } as const;

/** A metav1.LabelSelector as the API server matches it: an empty one matches everything. */
export function structuredSelector(selector: StructuredSelector): LabelSelector {
  const requirements: Requirement[] = [
    ...Object.entries(selector.matchLabels ?? {}).map(
      ([key, value]): Requirement => ({ key, op: 'in', values: [value] }),
    ),
    ...(selector.matchExpressions ?? []).map((e): Requirement => {
      const op = OPERATORS[e.operator];
      return op === 'in' || op === 'notin'
        ? { key: e.key, op, values: [...(e.values ?? [])] }
        : { key: e.key, op };
    }),
  ];
  return {
    requirements,
    matches: (labels) => requirements.every((r) => matchesRequirement(r, labels ?? {})),
  };
}
