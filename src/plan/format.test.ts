import { describe, expect, it } from 'vitest';
import { exitCodeOf, formatJson, formatMarkdown, formatText, summaryOf } from './format.ts';
import type { PlanEntry } from './model.ts';

const entry = (action: PlanEntry['action'], extra: Partial<PlanEntry> = {}): PlanEntry => ({
  kind: 'AgentDeployment',
  namespace: 'team-a',
  name: `agent-${action}`,
  action,
  message: `${action} message`,
  notes: [],
  ...extra,
});

const patch = entry('patch', {
  deploymentId: 'd-1',
  createsRevision: true,
  changes: [
    { field: 'source_revision_config.image_uri', from: 'agent:1', to: 'agent:2' },
    { field: 'secrets', from: ['A'], to: 'the same names, values changed' },
  ],
});
const create = entry('create', {
  createsRevision: true,
  request: { name: 'agent', secrets: [{ name: 'TOKEN', value: '(set)' }] },
});

describe('exitCodeOf: as terraform plan -detailed-exitcode, and 3 when the plan is incomplete', () => {
  it.each<[string, PlanEntry[], number]>([
    ['nothing given', [], 0],
    ['nothing to do', [entry('none')], 0],
    [
      'an object not judged (no credentials)',
      [entry('none'), entry('unknown', { reason: 'NoCredentials' })],
      3,
    ],
    ['an object not judged (no cluster)', [entry('unknown', { reason: 'NoCluster' })], 3],
    ['an object waiting on a Secret', [entry('wait', { reason: 'WaitingForSecret' })], 3],
    ['a create', [entry('none'), create], 2],
    ['a patch', [patch], 2],
    ['an object not judged wins over changes: the plan is incomplete', [create, entry('unknown')], 3],
    ['a refusal wins over changes', [create, entry('refused')], 1],
    ['a stall wins over changes', [patch, entry('stall')], 1],
    ['a problem wins over an object not judged', [entry('unknown'), entry('refused')], 1],
    ['a failed read', [entry('unknown', { reason: 'ReadFailed' })], 1],
    ['an object removed from the input whose deployment is deleted', [entry('delete', { removed: true })], 2],
    ['an object removed from the input that orphans: nothing sent', [entry('orphan', { removed: true })], 0],
    ['a deletion that waits (the platform deleting)', [entry('delete'), entry('wait', { removed: true })], 3],
  ])('%s: %s', (_, entries, code) => {
    expect(exitCodeOf(entries)).toBe(code);
  });
});

describe('formats', () => {
  const all = [create, patch, entry('none'), entry('stall', { reason: 'NameConflict', notes: ['a note'] })];

  it('text: one line per object with its symbol, the details indented, the summary last; colour only when asked', () => {
    const text = formatText(all, false);
    expect(text).toContain('+ AgentDeployment team-a/agent-create: create (new revision): create message');
    expect(text).toContain('~ AgentDeployment team-a/agent-patch: patch (new revision)');
    expect(text).toContain('    source_revision_config.image_uri: "agent:1" → "agent:2"');
    expect(text).toContain('! AgentDeployment team-a/agent-stall: stall (NameConflict): stall message');
    expect(text).toContain('    note: a note');
    expect(text.trim().split('\n').at(-1)).toBe(`Plan: ${summaryOf(all)}.`);
    expect(text).not.toContain('\u001b[');
    expect(formatText(all, true)).toContain('\u001b[32m+ AgentDeployment');
  });

  it('a note every object carries is printed once, in text and Markdown; one note of one object stays under it', () => {
    const shared = 'secret values not compared (no secrets-digest key): only their names are';
    const entries = [
      entry('create', { notes: [shared] }),
      entry('patch', { notes: [shared, 'only mine'] }),
      entry('none', { notes: [shared] }),
    ];
    const text = formatText(entries, false);
    expect(text.split(shared)).toHaveLength(2);
    expect(text).toContain(`note, for every object: ${shared}`);
    expect(text).toContain('    note: only mine');
    const markdown = formatMarkdown(entries);
    expect(markdown.split(shared)).toHaveLength(2);
    expect(markdown).toContain(`For every object:\n\n- ${shared}`);
    expect(markdown).toContain('note: only mine');
    // JSON keeps each entry whole, for machines.
    expect(JSON.parse(formatJson(entries)).entries[0].notes).toEqual([shared]);
    // One object: its notes are its own.
    expect(formatText([entries[0] as PlanEntry], false)).toContain(`    note: ${shared}`);
  });

  it('an observe-only object is shown as such, in text and Markdown', () => {
    const observed = entry('stall', { reason: 'DriftDetected', observeOnly: true });
    expect(formatText([observed], false)).toContain(
      '! AgentDeployment team-a/agent-stall: stall (DriftDetected) [observe-only]: stall message',
    );
    expect(formatMarkdown([observed])).toContain('| stall (DriftDetected) [observe-only] |');
  });

  it('--prune: a deletion and an orphan, marked as removed, with their counts in the summary', () => {
    const removed = [
      entry('delete', { removed: true, deploymentId: 'd-7', message: 'delete deployment d-7 (agent)' }),
      entry('orphan', { removed: true }),
    ];
    const text = formatText(removed, false);
    expect(text).toContain(
      '- AgentDeployment team-a/agent-delete: delete [removed from the input]: delete deployment d-7 (agent)',
    );
    expect(text).toContain(
      '- AgentDeployment team-a/agent-orphan: orphan [removed from the input]: orphan message',
    );
    expect(text).not.toContain('revision)');
    expect(formatMarkdown(removed)).toContain(
      '| - | `AgentDeployment team-a/agent-delete` | delete [removed from the input] |',
    );
    expect(summaryOf(removed)).toBe(
      '0 to create, 0 to patch (0 new revisions in all), 0 unchanged, 0 refused or stalled, 0 waiting or unknown, 1 to delete, 1 to orphan',
    );
  });

  it('markdown: a table row per object and a details block per object with details', () => {
    const md = formatMarkdown(all);
    expect(md).toContain(
      '| + | `AgentDeployment team-a/agent-create` | create (new revision) | create message |',
    );
    expect(md).toContain(
      '| ! | `AgentDeployment team-a/agent-stall` | stall (NameConflict) | stall message |',
    );
    expect(md.match(/<details>/g)).toHaveLength(3);
    expect(md).not.toContain('\u001b[');
  });

  it('markdown: a | in a message does not break the table', () => {
    expect(formatMarkdown([entry('none', { message: 'a | b' })])).toContain('a \\| b');
  });

  it('json: the entries, the summary and the exit code, parseable', () => {
    const parsed = JSON.parse(formatJson(all));
    expect(parsed.exitCode).toBe(1);
    expect(parsed.summary).toBe(summaryOf(all));
    expect(parsed.entries).toEqual(all);
  });

  it('the summary counts creates, patches with their revisions, and the rest', () => {
    expect(summaryOf(all)).toBe(
      '1 to create, 1 to patch (2 new revisions in all), 1 unchanged, 1 refused or stalled, 0 waiting or unknown',
    );
  });
});

describe('platform text in every format', () => {
  // A value and a message the platform chose: escapes, a C1 CSI, a forged line, a bidi override, a fence.
  const HOSTILE = 'v1\u001b[2J\u009b1A\n+ AgentDeployment forged: none\u202e ```\n</details>';
  const hostile = entry('patch', {
    message: `patch deployment ${HOSTILE}`,
    changes: [{ field: 'source_config.resource_spec.labels', from: { team: HOSTILE }, to: null }],
  });
  const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

  it('text: every line free of control characters, no forged line', () => {
    const lines = formatText([hostile], false).trimEnd().split('\n');
    for (const line of lines) expect(line).not.toMatch(UNSAFE);
    expect(lines.filter((l) => l.startsWith('+ AgentDeployment forged'))).toEqual([]);
    expect(lines.join('\n')).toContain('\\u001b[2J\\u009b1A');
  });

  it('markdown: no control characters, and the code fence cannot be closed by a value', () => {
    const md = formatMarkdown([hostile]);
    for (const line of md.split('\n')) expect(line).not.toMatch(UNSAFE);
    const fences = md.split('\n').filter((l) => /^`{3,}$/.test(l));
    expect(fences).toHaveLength(2);
    expect(fences[0]?.length).toBeGreaterThan(3);
  });

  it('json: still the same values once parsed, with no raw C1 or bidi character', () => {
    const json = formatJson([hostile]);
    for (const line of json.split('\n')) expect(line).not.toMatch(UNSAFE);
    const parsed = JSON.parse(json) as { entries: PlanEntry[] };
    expect(parsed.entries[0]?.changes?.[0]?.from).toEqual({ team: HOSTILE });
  });
});
