/**
 * Which listed template an object names. The listing's name filter is a case-insensitive substring
 * match, so the same filter is applied here and then only an exact (case-sensitive) match counts; two
 * exact matches are an error to report, never a pick.
 */
import type { SandboxTemplate } from '../../controlplane/template-schemas.ts';
import { cleanPeerText } from '../../lib/peer-text.ts';

export type Resolution =
  | { kind: 'found'; template: SandboxTemplate }
  | { kind: 'notFound'; similar: string[] }
  | { kind: 'ambiguous'; ids: string[] };

const MAX_SIMILAR = 5;
/** Near names are quoted in a condition: platform text, cleaned and cut. */
const MAX_SIMILAR_CHARS = 100;

export function resolveTemplate(templates: readonly SandboxTemplate[], name: string): Resolution {
  const needle = name.toLowerCase();
  const candidates = templates.filter((t) => t.name.toLowerCase().includes(needle));
  const exact = candidates.filter((t) => t.name === name);
  const [only] = exact;
  if (exact.length === 1 && only) return { kind: 'found', template: only };
  if (exact.length > 1) return { kind: 'ambiguous', ids: exact.map((t) => t.id).sort() };
  const similar = [...new Set(candidates.map((t) => cleanPeerText(t.name, MAX_SIMILAR_CHARS)))];
  return { kind: 'notFound', similar: similar.slice(0, MAX_SIMILAR) };
}
