/**
 * `kubectl agd history NAME`: status.history as a table, newest first, as `kubectl rollout history`
 * lists a Deployment's revisions. Each cell is the cluster's text cleaned (the ids and statuses come
 * from the control plane).
 */
import { clean } from './object-state.ts';
import type { VerbObject } from './objects.ts';

type Entry = NonNullable<NonNullable<VerbObject['status']>['history']>[number];

const HEADERS = ['ID', 'CONFIGURATION', 'TRIGGER', 'OUTCOME', 'WHEN'] as const;

function configuration(e: Entry): string {
  const built = [e.repoRef, e.repoCommitSha?.slice(0, 12), e.graphConfigPath].filter(Boolean).join(' ');
  const what = clean(e.image ?? built, 80) || '-';
  return e.redeployOf ? `${what} (redeploy of ${clean(e.redeployOf, 64)})` : what;
}

function outcome(e: Entry, status: VerbObject['status']): string {
  const base = e.outcome ?? `InProgress${e.status ? ` (${clean(e.status, 64)})` : ''}`;
  const marks = [
    e.verification === 'Succeeded' ? 'verified' : e.verification === 'Failed' ? 'verification failed' : '',
    e.pruned ? 'pruned' : '',
    e.id === status?.activeRevisionId ? 'active' : '',
    e.id === status?.lastGoodRevision ? 'last good' : '',
  ].filter(Boolean);
  return marks.length > 0 ? `${base}, ${marks.join(', ')}` : base;
}

/** The rows under the headers; one per revision. */
export function historyRows(obj: VerbObject): string[][] {
  return (obj.status?.history ?? []).map((e) => [
    clean(e.id, 64),
    configuration(e),
    clean(e.trigger, 32) || '-',
    outcome(e, obj.status),
    clean(e.createdAt, 40) || '-',
  ]);
}

/** Columns padded to their widest cell, two spaces apart. */
export function table(rows: readonly (readonly string[])[]): string {
  const width = (s: string) => Array.from(s).length;
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => width(r[i] ?? '')))) ?? [];
  const line = (r: readonly string[]) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell))))
      .join('  ');
  return `${rows.map(line).join('\n')}\n`;
}

/** What `history` prints; `what` names the object. */
export function formatHistory(obj: VerbObject, what: string): string {
  const rows = historyRows(obj);
  if (rows.length === 0) return `No revisions recorded for ${what} yet.\n`;
  return table([[...HEADERS], ...rows]);
}
