import { describe, expect, it } from 'vitest';
import { Reason } from '../api/names.ts';
import { applyOutcome, type Condition, findCondition, removeCondition, setCondition } from './conditions.ts';
import type { Outcome } from './outcome.ts';

const EARLIER = '2025-12-31T00:00:00.000Z';
const NOW = new Date('2026-01-01T00:00:00.000Z');

const cond = (type: string, status: Condition['status'], reason: string, message = 'm'): Condition => ({
  type,
  status,
  observedGeneration: 1,
  reason,
  message,
  lastTransitionTime: EARLIER,
});

/** `Type=Status/Reason@when`, where `when` is `kept` (EARLIER) or `now`. */
const brief = (conditions: readonly Condition[]) =>
  conditions.map(
    (c) =>
      `${c.type}=${c.status}/${c.reason}@${c.lastTransitionTime === EARLIER ? 'kept' : c.lastTransitionTime === NOW.toISOString() ? 'now' : c.lastTransitionTime}`,
  );

const ready: Condition[] = [cond('Ready', 'True', 'Succeeded')];
const stalled: Condition[] = [cond('Ready', 'False', 'Rejected'), cond('Stalled', 'True', 'Rejected')];
const reconciling: Condition[] = [
  cond('Ready', 'False', 'Progressing'),
  cond('Reconciling', 'True', 'Progressing'),
];
const paused: Condition[] = [cond('Ready', 'True', 'Succeeded'), cond('Paused', 'True', 'Paused')];
const verified = cond('Verified', 'True', 'Succeeded');

const outcome = (kind: Outcome['kind'], reason: Reason): Outcome => ({
  kind,
  reason,
  message: `${kind} now`,
});

describe('applyOutcome', () => {
  it.each<{ name: string; before: Condition[]; outcome: Outcome; after: string[] }>([
    {
      name: 'ready from nothing',
      before: [],
      outcome: outcome('ready', Reason.Succeeded),
      after: ['Ready=True/Succeeded@now'],
    },
    {
      name: 'ready again keeps the transition time',
      before: ready,
      outcome: outcome('ready', Reason.Succeeded),
      after: ['Ready=True/Succeeded@kept'],
    },
    {
      name: 'ready ends a stall',
      before: stalled,
      outcome: outcome('ready', Reason.Succeeded),
      after: ['Ready=True/Succeeded@now'],
    },
    {
      name: 'ready ends reconciling',
      before: reconciling,
      outcome: outcome('ready', Reason.Succeeded),
      after: ['Ready=True/Succeeded@now'],
    },
    {
      name: 'progressing from ready',
      before: ready,
      outcome: outcome('progressing', Reason.Progressing),
      after: ['Ready=False/Progressing@now', 'Reconciling=True/Progressing@now'],
    },
    {
      name: 'waiting replaces a stall',
      before: stalled,
      outcome: outcome('waiting', Reason.WaitingForSecret),
      after: ['Ready=False/WaitingForSecret@kept', 'Reconciling=True/WaitingForSecret@now'],
    },
    {
      name: 'stalled replaces reconciling',
      before: reconciling,
      outcome: outcome('stalled', Reason.Rejected),
      after: ['Ready=False/Rejected@kept', 'Stalled=True/Rejected@now'],
    },
    {
      name: 'transient keeps Ready as it was',
      before: ready,
      outcome: outcome('transient', Reason.ControlPlaneUnavailable),
      after: ['Ready=True/Succeeded@kept', 'Reconciling=True/ControlPlaneUnavailable@now'],
    },
    {
      name: 'transient with no Ready yet: Unknown',
      before: [],
      outcome: outcome('transient', Reason.Error),
      after: ['Ready=Unknown/Error@now', 'Reconciling=True/Error@now'],
    },
    {
      name: 'transient leaves a stall in place',
      before: stalled,
      outcome: outcome('transient', Reason.ControlPlaneUnavailable),
      after: [
        'Ready=False/Rejected@kept',
        'Stalled=True/Rejected@kept',
        'Reconciling=True/ControlPlaneUnavailable@now',
      ],
    },
    {
      name: 'paused keeps Ready, ends reconciling, says Paused',
      before: [...reconciling],
      outcome: outcome('paused', Reason.Paused),
      after: ['Ready=False/Progressing@kept', 'Paused=True/Paused@now'],
    },
    {
      name: 'paused with no Ready yet: Unknown',
      before: [],
      outcome: outcome('paused', Reason.Paused),
      after: ['Ready=Unknown/Paused@now', 'Paused=True/Paused@now'],
    },
    {
      name: 'paused by an inconclusive analysis: not Ready, for kstatus InProgress',
      before: paused.slice(0, 1),
      outcome: outcome('paused', Reason.AnalysisInconclusive),
      after: ['Ready=False/AnalysisInconclusive@now', 'Paused=True/AnalysisInconclusive@now'],
    },
    {
      name: 'resumed: Paused goes',
      before: paused,
      outcome: outcome('ready', Reason.Succeeded),
      after: ['Ready=True/Succeeded@kept'],
    },
    {
      name: "a kind's own condition is left alone",
      before: [...ready, verified],
      outcome: outcome('stalled', Reason.Rejected),
      after: ['Ready=False/Rejected@now', 'Verified=True/Succeeded@kept', 'Stalled=True/Rejected@now'],
    },
    {
      name: 'deleted changes nothing but Paused',
      before: [...paused, cond('Stalled', 'True', 'Rejected')],
      outcome: outcome('deleted', Reason.Succeeded),
      after: ['Ready=True/Succeeded@kept', 'Stalled=True/Rejected@kept'],
    },
  ])('$name', ({ before, outcome, after }) => {
    expect(brief(applyOutcome(before, outcome, 2, NOW))).toEqual(after);
  });

  it("carries the outcome's message and the generation on what it sets", () => {
    const [condition] = applyOutcome([], outcome('ready', Reason.Succeeded), 7, NOW);
    expect(condition).toEqual({
      type: 'Ready',
      status: 'True',
      observedGeneration: 7,
      reason: 'Succeeded',
      message: 'ready now',
      lastTransitionTime: NOW.toISOString(),
    });
  });

  it('does not change the list it was given', () => {
    const before = structuredClone(stalled);
    applyOutcome(before, outcome('ready', Reason.Succeeded), 2, NOW);
    expect(before).toEqual(stalled);
  });
});

describe('setCondition', () => {
  it.each<{ name: string; before: Condition[]; status: Condition['status']; after: string[] }>([
    { name: 'adds one', before: [], status: 'True', after: ['Ready=True/Succeeded@now'] },
    {
      name: 'same status keeps its time',
      before: ready,
      status: 'True',
      after: ['Ready=True/Succeeded@kept'],
    },
    {
      name: 'another status moves its time',
      before: ready,
      status: 'False',
      after: ['Ready=False/Succeeded@now'],
    },
    {
      name: 'replaces in place',
      before: [...stalled, verified],
      status: 'True',
      after: ['Ready=True/Succeeded@now', 'Stalled=True/Rejected@kept', 'Verified=True/Succeeded@kept'],
    },
  ])('$name', ({ before, status, after }) => {
    const next = setCondition(before, { type: 'Ready', status, reason: 'Succeeded', message: 'ok' }, NOW);
    expect(brief(next)).toEqual(after);
  });

  it.each<{ length: number; kept: number }>([
    { length: 1024, kept: 1024 },
    { length: 5000, kept: 1024 },
  ])('a message of $length characters is stored as $kept', ({ length, kept }) => {
    const [c] = setCondition(
      [],
      { type: 'Ready', status: 'True', reason: 'Succeeded', message: 'x'.repeat(length) },
      NOW,
    );
    expect(c?.message).toHaveLength(kept);
    if (length > kept) expect(c?.message.endsWith('…')).toBe(true);
  });
});

describe('findCondition and removeCondition', () => {
  it('find by type, remove by type', () => {
    expect(findCondition(stalled, 'Stalled')?.reason).toBe('Rejected');
    expect(findCondition(undefined, 'Ready')).toBeUndefined();
    expect(brief(removeCondition(stalled, 'Stalled'))).toEqual(['Ready=False/Rejected@kept']);
    expect(removeCondition(ready, 'Stalled')).toEqual(ready);
  });
});
