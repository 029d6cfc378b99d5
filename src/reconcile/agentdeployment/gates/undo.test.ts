import { describe, expect, it } from 'vitest';
import { Annotation } from '../../../api/names.ts';
import type { HistoryEntry } from '../../../api/remediation.ts';
import { decidedBy, deploymentOf, facts, resolved } from '../facts.test-support.ts';
import { undo, undoTarget } from './undo.ts';

const entry = (id: string, more: Partial<HistoryEntry> = {}): HistoryEntry =>
  ({ id, trigger: 'Spec', generation: 1, outcome: 'Deployed', ...more }) as HistoryEntry;
/** Newest first: r-3 runs now, r-2 failed, r-1 deployed before it. */
const HISTORY = [entry('r-3'), entry('r-2', { outcome: 'Failed' }), entry('r-1')];

function undoing(annotations: Record<string, string>, status: object = {}, observeOnly = false) {
  const f = resolved(
    facts({
      annotations,
      spec: observeOnly ? { managementPolicies: ['Observe'] } : {},
      status: { deploymentId: 'd-1', history: HISTORY, ...status },
    }),
  );
  f.recorded = deploymentOf(f, { latest_revision_id: 'r-3', active_revision_id: 'r-3' });
  return f;
}

describe('gate undo', () => {
  it.each<[string, Record<string, string>, object, boolean, object | undefined]>([
    ['no request: the next gate decides', {}, {}, false, undefined],
    [
      'a request handled already: the next gate decides (never a loop)',
      { [Annotation.UndoRequestedAt]: 't1' },
      { lastHandledUndoAt: 't1' },
      false,
      undefined,
    ],
    [
      'a new request: roll back to the newest other revision that deployed',
      { [Annotation.UndoRequestedAt]: 't2' },
      { lastHandledUndoAt: 't1' },
      false,
      { kind: 'rollback', from: 'r-3', to: 'r-1', undone: 't2' },
    ],
    [
      'the revision named',
      { [Annotation.UndoRequestedAt]: 't1', [Annotation.UndoToRevision]: 'r-3' },
      {},
      false,
      { kind: 'rollback', from: 'r-3', to: 'r-3', undone: 't1' },
    ],
    [
      'a revision named that never deployed: refused, handled',
      { [Annotation.UndoRequestedAt]: 't1', [Annotation.UndoToRevision]: 'r-2' },
      {},
      false,
      { kind: 'stall', reason: 'UndoRefused', undone: 't1' },
    ],
    [
      'observe-only: refused, nothing sent',
      { [Annotation.UndoRequestedAt]: 't1' },
      {},
      true,
      { kind: 'stall', reason: 'UndoRefused', undone: 't1' },
    ],
  ])('%s', (_name, annotations, status, observeOnly, expected) => {
    const verdict = decidedBy(undo, undoing(annotations, status, observeOnly));
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });

  it.each<[string, boolean, object]>([
    ['allows rollbacks (the default): the undo goes through', true, { kind: 'rollback', to: 'r-1' }],
    [
      'allowRollback false: held, the request kept for when it opens',
      false,
      { kind: 'wait', reason: 'WindowClosed' },
    ],
  ])('a policy freezing it now %s', (_name, allowRollback, expected) => {
    const f = undoing({ [Annotation.UndoRequestedAt]: 't1' });
    f.policies = {
      readable: true,
      selecting: [
        {
          name: 'freeze',
          windows: [{ kind: 'Deny', schedule: '0 0 * * *', duration: '2h' }],
          manualOverride: false,
          allowRollback,
        },
      ],
    };
    const verdict = decidedBy(undo, f);
    expect(verdict).toMatchObject(expected);
    // Held, not handled: the request goes through once the window opens.
    if (verdict?.kind === 'wait') expect(verdict).not.toHaveProperty('undone');
  });

  it('a history with no other revision that deployed: refused', () => {
    const f = undoing({ [Annotation.UndoRequestedAt]: 't1' }, { history: [entry('r-3')] });
    expect(decidedBy(undo, f)).toMatchObject({ kind: 'stall', reason: 'UndoRefused' });
  });

  it.each<[string, HistoryEntry[], string | undefined, string | undefined, string | undefined]>([
    ['the newest other that deployed', HISTORY, 'r-3', undefined, 'r-1'],
    [
      'a pruned revision is never a target',
      [entry('r-3'), entry('r-1', { pruned: true })],
      'r-3',
      undefined,
      undefined,
    ],
    ['the one named, deployed', HISTORY, 'r-3', 'r-1', 'r-1'],
    ['the one named, unknown', HISTORY, 'r-3', 'r-9', undefined],
  ])('target: %s', (_name, history, active, named, expected) => {
    expect(undoTarget(history, active, named)?.id).toBe(expected);
  });
});
