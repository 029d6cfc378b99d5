import { describe, expect, it } from 'vitest';
import type { SandboxTemplateStatus } from '../../api/sandboxtemplate.ts';
import type { Condition } from '../../runtime/conditions.ts';
import { type SummarisedPass, statusEvents, summarizeDrift, type TemplateFound } from './summary.ts';

const EARLIER = '2025-12-31T00:00:00.000Z';
const NOW = new Date('2026-01-01T00:00:00.000Z');

const cond = (type: string, status: Condition['status'], reason: string): Condition => ({
  type,
  status,
  observedGeneration: 1,
  reason,
  message: 'm',
  lastTransitionTime: EARLIER,
});
const drifted = cond('Drifted', 'True', 'DriftDetected');
const inSync = cond('Drifted', 'False', 'InSync');
const ready = cond('Ready', 'True', 'Succeeded');

const imageDrift: TemplateFound = {
  id: 't-1',
  drift: [{ field: 'image', expected: 'python:3.12', observed: 'python:3.11' }],
};

/** `Type=Status/Reason: message`, with `(now)` when set by this summary. */
const brief = (conditions: readonly Condition[] | undefined) =>
  (conditions ?? []).map(
    (c) =>
      `${c.type}=${c.status}/${c.reason}: ${c.message}${c.lastTransitionTime === NOW.toISOString() ? ' (now)' : ''}`,
  );

describe('summarizeDrift', () => {
  it.each<{ name: string; status: SandboxTemplateStatus; found?: TemplateFound; conditions: string[] }>([
    {
      name: 'found with drift: Drifted True naming the fields',
      status: { conditions: [ready], templateId: 't-1' },
      found: imageDrift,
      conditions: [
        'Ready=True/Succeeded: m',
        'Drifted=True/DriftDetected: template t-1 differs from the spec: image: spec python:3.12, observed python:3.11 (now)',
      ],
    },
    {
      name: 'found in sync: Drifted False',
      status: { conditions: [drifted], templateId: 't-1' },
      found: { id: 't-1', drift: [] },
      conditions: ['Drifted=False/InSync: the template matches the spec (now)'],
    },
    {
      name: 'in sync again: the transition time is kept',
      status: { conditions: [inSync], templateId: 't-1' },
      found: { id: 't-1', drift: [] },
      conditions: ['Drifted=False/InSync: the template matches the spec'],
    },
    {
      name: 'nothing found and nothing named any more: Drifted goes',
      status: { conditions: [ready, drifted] },
      conditions: ['Ready=True/Succeeded: m'],
    },
    {
      name: 'the pass ended before the listing, a template still named: Drifted stays',
      status: { conditions: [drifted], templateId: 't-1' },
      conditions: ['Drifted=True/DriftDetected: m'],
    },
  ])('$name', ({ status, found, conditions }) => {
    const pass: SummarisedPass = { status: structuredClone(status), generation: 2, decidedAt: NOW, found };
    summarizeDrift(pass);
    expect(brief(pass.status.conditions)).toEqual(conditions);
  });

  it('sets Drifted at the generation of the pass', () => {
    const pass: SummarisedPass = { status: {}, generation: 5, decidedAt: NOW, found: imageDrift };
    summarizeDrift(pass);
    expect(pass.status.conditions?.[0]?.observedGeneration).toBe(5);
  });
});

describe('statusEvents', () => {
  it.each<{ name: string; before: Condition[]; after: Condition[]; events: string[] }>([
    {
      name: 'drift clears: a Normal event',
      before: [drifted],
      after: [inSync],
      events: ['Normal/InSync: the template matches the spec again'],
    },
    { name: 'drift appears: the shell warns, not this', before: [inSync], after: [drifted], events: [] },
    { name: 'in sync from the start: nothing', before: [], after: [inSync], events: [] },
    { name: 'still drifted: nothing', before: [drifted], after: [drifted], events: [] },
    { name: 'drift gone with the template: nothing', before: [drifted], after: [], events: [] },
  ])('$name', ({ before, after, events }) => {
    const got = statusEvents({ conditions: before }, { conditions: after });
    expect(got.map((e) => `${e.type}/${e.reason}: ${e.message}`)).toEqual(events);
  });
});
