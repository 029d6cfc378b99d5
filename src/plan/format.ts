/**
 * A plan as text (coloured on a terminal), Markdown (a pull-request comment) or JSON (for machines), and
 * the exit code it stands for. Nothing here sees a secret value: the planners already replaced them.
 * Lines quote the platform (names, values, messages): every control or invisible character is shown
 * escaped (escapeInvisible), so nothing printed acts on a terminal or forges a line.
 */
import { escapeInvisible } from '../lib/peer-text.ts';
import { isChange, isProblem, type PlanEntry } from './model.ts';

export type OutputFormat = 'text' | 'markdown' | 'json';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['text', 'markdown', 'json'];

/**
 * What the plan knows, as `terraform plan -detailed-exitcode` does with one code more, first match
 * wins: 1 a problem (an object refused or that would stall, a failed read); 3 incomplete (an object
 * the plan could not judge, `unknown`, or that waits on something first, `wait`: what the controller
 * will send for it is not known yet); 2 changes (a create, a patch, a redeploy, or a deployment deleted with an
 * object removed from the input); 0 every object known to need nothing (an orphan sends nothing).
 */
export function exitCodeOf(entries: readonly PlanEntry[]): 0 | 1 | 2 | 3 {
  if (entries.some((e) => isProblem(e) || e.reason === 'ReadFailed')) return 1;
  if (entries.some((e) => e.action === 'unknown' || e.action === 'wait')) return 3;
  return entries.some(isChange) ? 2 : 0;
}

const SYMBOL: Record<PlanEntry['action'], string> = {
  create: '+',
  patch: '~',
  redeploy: '↻',
  none: '=',
  refused: '!',
  stall: '!',
  wait: '…',
  unknown: '?',
  delete: '-',
  orphan: '-',
};
const COLOUR: Record<PlanEntry['action'], number> = {
  create: 32,
  patch: 33,
  redeploy: 33,
  none: 2,
  refused: 31,
  stall: 31,
  wait: 36,
  unknown: 35,
  delete: 31,
  orphan: 2,
};

export function summaryOf(entries: readonly PlanEntry[]): string {
  const count = (f: (e: PlanEntry) => boolean) => entries.filter(f).length;
  const revisions = count(
    (e) => (e.action === 'create' || e.action === 'patch') && e.createsRevision === true,
  );
  return [
    `${count((e) => e.action === 'create')} to create`,
    `${count((e) => e.action === 'patch')} to patch (${revisions} new revision${revisions === 1 ? '' : 's'} in all)`,
    ...(count((e) => e.action === 'redeploy') > 0
      ? [`${count((e) => e.action === 'redeploy')} to redeploy`]
      : []),
    `${count((e) => e.action === 'none')} unchanged`,
    `${count(isProblem)} refused or stalled`,
    `${count((e) => e.action === 'wait' || e.action === 'unknown')} waiting or unknown`,
    // Objects removed from the input appear only with --prune.
    ...(count((e) => e.removed === true) > 0
      ? [
          `${count((e) => e.action === 'delete')} to delete`,
          `${count((e) => e.action === 'orphan')} to orphan`,
        ]
      : []),
  ].join(', ');
}

const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v ?? null));
const title = (e: PlanEntry) => `${e.kind} ${e.namespace}/${e.name}`;
const observing = (e: PlanEntry) =>
  `${e.observeOnly ? ' [observe-only]' : ''}${e.removed ? ' [removed from the input]' : ''}`;
const revision = (e: PlanEntry) =>
  e.action === 'create' || e.action === 'patch'
    ? e.createsRevision
      ? ' (new revision)'
      : ' (no new revision)'
    : '';

/**
 * The notes every entry carries, when there are two entries or more (no secrets-digest key, no
 * cluster): text and Markdown print them once, not under each object. JSON keeps each entry whole.
 */
export function commonNotes(entries: readonly PlanEntry[]): string[] {
  const [first, ...rest] = entries;
  if (!first || rest.length === 0) return [];
  return first.notes.filter((n) => rest.every((e) => e.notes.includes(n)));
}

/** The lines under an entry's title: request, changes, drift, notes (but those of every entry). */
function details(e: PlanEntry, common: readonly string[] = []): string[] {
  const lines: string[] = [];
  if (e.request) lines.push(...JSON.stringify(e.request, null, 2).split('\n'));
  for (const c of e.changes ?? []) lines.push(`${c.field}: ${show(c.from)} → ${show(c.to)}`);
  for (const d of e.drift ?? []) lines.push(`${d.field}: spec ${d.expected}, control plane ${d.observed}`);
  for (const n of e.notes) if (!common.includes(n)) lines.push(`note: ${n}`);
  return lines;
}

export function formatText(entries: readonly PlanEntry[], colour: boolean): string {
  const paint = (code: number, s: string) => (colour ? `\u001b[${code}m${s}\u001b[0m` : s);
  const out: string[] = [];
  const common = commonNotes(entries);
  for (const e of entries) {
    const what = e.reason ? `${e.action} (${e.reason})` : e.action;
    out.push(
      paint(
        COLOUR[e.action],
        escapeInvisible(
          `${SYMBOL[e.action]} ${title(e)}: ${what}${observing(e)}${revision(e)}: ${e.message}`,
        ),
      ),
    );
    for (const line of details(e, common)) out.push(`    ${escapeInvisible(line)}`);
  }
  if (common.length > 0) out.push('', ...common.map((n) => escapeInvisible(`note, for every object: ${n}`)));
  out.push('', `Plan: ${summaryOf(entries)}.`);
  return `${out.join('\n')}\n`;
}

export function formatMarkdown(entries: readonly PlanEntry[]): string {
  const cell = (s: string) => escapeInvisible(s.replaceAll('|', '\\|').replaceAll('\n', ' '));
  const common = commonNotes(entries);
  const out = [
    '### kubectl agd plan',
    '',
    `**${summaryOf(entries)}.**`,
    '',
    ...(common.length > 0 ? ['For every object:', '', ...common.map((n) => `- ${cell(n)}`), ''] : []),
    '| | Object | Action | What |',
    '|---|---|---|---|',
    ...entries.map(
      (e) =>
        `| ${SYMBOL[e.action]} | \`${title(e)}\` | ${e.action}${e.reason ? ` (${e.reason})` : ''}${observing(e)}${revision(e)} | ${cell(e.message)} |`,
    ),
  ];
  for (const e of entries) {
    const lines = details(e, common).map(escapeInvisible);
    if (lines.length === 0) continue;
    // A fence longer than any run of backticks in the lines: a value cannot close it.
    const longest = Math.max(
      2,
      ...lines.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((r) => r.length))),
    );
    const fence = '`'.repeat(longest + 1);
    out.push(
      '',
      `<details><summary><code>${title(e)}</code>: ${e.action}</summary>`,
      '',
      fence,
      ...lines,
      fence,
      '',
      '</details>',
    );
  }
  return `${out.join('\n')}\n`;
}

export function formatJson(entries: readonly PlanEntry[]): string {
  // JSON escapes C0 characters itself; C1, bidi and separators are escaped per line (still valid JSON).
  const text = JSON.stringify(
    { summary: summaryOf(entries), exitCode: exitCodeOf(entries), entries },
    null,
    2,
  );
  return `${text.split('\n').map(escapeInvisible).join('\n')}\n`;
}

export function formatPlan(entries: readonly PlanEntry[], format: OutputFormat, colour: boolean): string {
  if (format === 'json') return formatJson(entries);
  if (format === 'markdown') return formatMarkdown(entries);
  return formatText(entries, colour);
}
