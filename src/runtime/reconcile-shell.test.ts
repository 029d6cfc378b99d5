import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { EventReason, Reason } from '../api/names.ts';
import type { Condition } from './conditions.ts';
import type { ReconcileContext, ReconcileResult } from './controller.ts';
import { type Outcome, Stall, Wait } from './outcome.ts';
import {
  conditionChange,
  type KindShell,
  type ObjectStatus,
  type Pass,
  type PendingEvent,
  problemEvents,
  type ReconciledObject,
  reconcileWithShell,
  type Step,
} from './reconcile-shell.ts';

/** A kind of its own, so the shell is tested without any controller's steps. */
interface TestStatus extends ObjectStatus {
  syncedAt?: string;
}
type TestObject = ReconciledObject<TestStatus>;
type TestPass = Pass<TestObject, TestStatus>;

const EARLIER = '2025-12-31T00:00:00.000Z';
const NOW = new Date('2026-01-01T00:00:00.000Z');
const GENERATION = 3;

const cond = (
  type: string,
  status: Condition['status'],
  reason: string,
  message: string,
  lastTransitionTime = EARLIER,
): Condition => ({ type, status, observedGeneration: GENERATION, reason, message, lastTransitionTime });

const object = (status?: TestStatus): TestObject => ({
  apiVersion: 'test.dev/v1',
  kind: 'Test',
  metadata: { namespace: 'ns', name: 'obj', uid: 'uid-1', generation: GENERATION },
  ...(status ? { status } : {}),
});

const context = (): ReconcileContext => ({
  signal: new AbortController().signal,
  deadline: new AbortController().signal,
  log: pino({ level: 'silent' }),
});

interface Harness {
  shell: KindShell<TestObject, TestStatus, TestPass>;
  writes: Array<{ base: TestObject; status: TestStatus }>;
  events: PendingEvent[];
  ran: string[];
}

/** A fake kind: a step that records it ran, then `end`, then a step that must never run after an outcome. */
function harness(
  obj: TestObject | undefined,
  end: (pass: TestPass) => Outcome | undefined,
  overrides: Partial<KindShell<TestObject, TestStatus, TestPass>> = {},
): Harness {
  const writes: Harness['writes'] = [];
  const events: PendingEvent[] = [];
  const ran: string[] = [];
  const step = (name: string, run: Step<TestPass>['run']): Step<TestPass> => ({
    name,
    run: (pass) => {
      ran.push(name);
      return run(pass);
    },
  });
  const shell: KindShell<TestObject, TestStatus, TestPass> = {
    kind: 'Test',
    read: () => obj,
    begin: (pass) => pass,
    steps: [
      step('first', () => undefined),
      step('end', end),
      step('after', () => ({ kind: 'ready', reason: Reason.Succeeded, message: 'never' })),
    ],
    classify: () => undefined,
    writeStatus: async (base, status) => {
      writes.push({ base, status });
    },
    recordEvent: (_obj, event) => {
      events.push(event);
    },
    requeueAfter: () => 60_000,
    now: () => NOW,
    ...overrides,
  };
  return { shell, writes, events, ran };
}

/** `Type=Status/Reason`, in the order the conditions are stored. */
const brief = (conditions: readonly Condition[] | undefined) =>
  (conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`);
const briefEvents = (events: readonly PendingEvent[]) => events.map((e) => `${e.type}/${e.reason}`);

const readyBefore: TestStatus = {
  observedGeneration: GENERATION,
  conditions: [cond('Ready', 'True', 'Succeeded', 'ok')],
};
const stalledBefore: TestStatus = {
  observedGeneration: GENERATION,
  conditions: [cond('Ready', 'False', 'Rejected', 'no'), cond('Stalled', 'True', 'Rejected', 'no')],
};

class Unauthorized extends Error {
  readonly retryAfterMs = 2_000;
}

describe('reconcileWithShell', () => {
  it.each<{
    name: string;
    before?: TestStatus;
    end: (pass: TestPass) => Outcome | undefined;
    overrides?: Partial<KindShell<TestObject, TestStatus, TestPass>>;
    /** The stored conditions and observedGeneration; undefined: no status write. */
    written: { observedGeneration?: number; conditions: string[] } | undefined;
    events: string[];
    result?: ReconcileResult;
    throws?: string;
  }>([
    {
      name: 'ready from nothing: written once, no event',
      end: () => ({ kind: 'ready', reason: Reason.Succeeded, message: 'ok' }),
      written: { observedGeneration: GENERATION, conditions: ['Ready=True/Succeeded'] },
      events: [],
      result: { requeueAfterMs: 60_000 },
    },
    {
      name: 'ready again, unchanged: no write, no event',
      before: readyBefore,
      end: () => ({ kind: 'ready', reason: Reason.Succeeded, message: 'ok' }),
      written: undefined,
      events: [],
      result: { requeueAfterMs: 60_000 },
    },
    {
      name: 'progressing: the next pass is a continuing one',
      before: readyBefore,
      end: () => ({ kind: 'progressing', reason: Reason.Progressing, message: 'building' }),
      written: {
        observedGeneration: GENERATION,
        conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
      },
      events: [],
      result: { requeueAfterMs: 60_000, continuing: true },
    },
    {
      name: 'a stall: a Warning when it appears, no error',
      before: readyBefore,
      end: () => {
        throw new Stall(Reason.Rejected, 'no');
      },
      written: {
        observedGeneration: GENERATION,
        conditions: ['Ready=False/Rejected', 'Stalled=True/Rejected'],
      },
      events: ['Warning/Rejected'],
      result: { requeueAfterMs: 60_000 },
    },
    {
      name: 'the same stall again: no Warning, no write',
      before: stalledBefore,
      end: () => {
        throw new Stall(Reason.Rejected, 'no');
      },
      written: undefined,
      events: [],
      result: { requeueAfterMs: 60_000 },
    },
    {
      name: 'the stall with another message: a Warning again',
      before: stalledBefore,
      end: () => {
        throw new Stall(Reason.Rejected, 'no, for another reason');
      },
      written: {
        observedGeneration: GENERATION,
        conditions: ['Ready=False/Rejected', 'Stalled=True/Rejected'],
      },
      events: ['Warning/Rejected'],
      result: { requeueAfterMs: 60_000 },
    },
    {
      name: 'a Wait with a delay: back after that delay',
      end: () => {
        throw new Wait(Reason.WaitingForSecret, 'secret s is missing', 5_000);
      },
      written: {
        observedGeneration: GENERATION,
        conditions: ['Ready=False/WaitingForSecret', 'Reconciling=True/WaitingForSecret'],
      },
      events: ['Warning/WaitingForSecret'],
      result: { requeueAfterMs: 5_000 },
    },
    {
      name: "a step's own requeue wins over the kind's",
      before: readyBefore,
      end: (pass) => {
        pass.requeueAfterMs = 1_000;
        return { kind: 'ready', reason: Reason.Succeeded, message: 'ok' };
      },
      written: undefined,
      events: [],
      result: { requeueAfterMs: 1_000 },
    },
    {
      name: 'an unknown error: status written and a Warning, then thrown for backoff',
      end: () => {
        throw new Error('boom');
      },
      written: {
        observedGeneration: GENERATION,
        conditions: ['Ready=Unknown/Error', 'Reconciling=True/Error'],
      },
      events: ['Warning/Error'],
      throws: 'boom',
    },
    {
      name: 'an unknown error keeps Ready as it was',
      before: readyBefore,
      end: () => {
        throw new Error('boom');
      },
      written: {
        observedGeneration: GENERATION,
        conditions: ['Ready=True/Succeeded', 'Reconciling=True/Error'],
      },
      events: ['Warning/Error'],
      throws: 'boom',
    },
    {
      name: "an error the kind classifies: its outcome, and the error's own delay",
      end: () => {
        throw new Unauthorized('401');
      },
      overrides: {
        classify: (err) =>
          err instanceof Unauthorized
            ? { kind: 'waiting', reason: Reason.Unauthorized, message: '401' }
            : undefined,
      },
      written: {
        observedGeneration: GENERATION,
        conditions: ['Ready=False/Unauthorized', 'Reconciling=True/Unauthorized'],
      },
      events: ['Warning/Unauthorized'],
      result: { requeueAfterMs: 2_000 },
    },
    {
      name: 'no step ends the pass: an error naming the kind',
      end: () => undefined,
      overrides: { steps: [] },
      written: {
        observedGeneration: GENERATION,
        conditions: ['Ready=Unknown/Error', 'Reconciling=True/Error'],
      },
      events: ['Warning/Error'],
      throws: 'Test: no step ended the pass',
    },
    {
      name: 'paused: the generation is not claimed as observed',
      before: { observedGeneration: 2, conditions: [cond('Reconciling', 'True', 'Progressing', 'building')] },
      end: () => ({ kind: 'paused', reason: Reason.Paused, message: 'paused by annotation' }),
      written: { observedGeneration: 2, conditions: ['Ready=Unknown/Paused', 'Paused=True/Paused'] },
      events: [],
      result: { requeueAfterMs: 60_000 },
    },
    {
      name: "deleted: the pass's events, no status write, no requeue",
      before: readyBefore,
      end: (pass) => {
        pass.events.push({ type: 'Normal', reason: EventReason.Deleted, message: 'deleted deployment d-1' });
        return { kind: 'deleted', reason: Reason.Succeeded, message: 'deletion policy applied' };
      },
      written: undefined,
      events: ['Normal/Deleted'],
      result: {},
    },
    {
      name: 'the kind asks for no requeue: only a change brings it back',
      end: () => ({ kind: 'ready', reason: Reason.Succeeded, message: 'ok' }),
      overrides: { requeueAfter: () => undefined },
      written: { observedGeneration: GENERATION, conditions: ['Ready=True/Succeeded'] },
      events: [],
      result: {},
    },
  ])('$name', async ({ before, end, overrides, written, events, result, throws }) => {
    const h = harness(object(before), end, overrides);
    const pass = reconcileWithShell(h.shell, 'ns/obj', context());
    if (throws) await expect(pass).rejects.toThrow(throws);
    else await expect(pass).resolves.toEqual(result);
    expect(briefEvents(h.events)).toEqual(events);
    if (!written) {
      expect(h.writes).toEqual([]);
      return;
    }
    expect(h.writes).toHaveLength(1);
    const status = h.writes[0]?.status;
    expect(status?.observedGeneration).toBe(written.observedGeneration);
    expect(brief(status?.conditions)).toEqual(written.conditions);
  });

  it('does nothing for an object it cannot read', async () => {
    const h = harness(undefined, () => ({ kind: 'ready', reason: Reason.Succeeded, message: 'ok' }));
    await expect(reconcileWithShell(h.shell, 'ns/obj', context())).resolves.toEqual({});
    expect(h.ran).toEqual([]);
    expect(h.writes).toEqual([]);
  });

  it('runs the steps in order and none after the one that ends the pass', async () => {
    const h = harness(object(), () => ({ kind: 'ready', reason: Reason.Succeeded, message: 'ok' }));
    await reconcileWithShell(h.shell, 'ns/obj', context());
    expect(h.ran).toEqual(['first', 'end']);
  });

  it('sets conditions at the time the steps decided, not when the pass started', async () => {
    const times = [new Date('2026-01-01T00:00:00.000Z'), new Date('2026-01-01T00:00:07.000Z')];
    const h = harness(object(), () => ({ kind: 'ready', reason: Reason.Succeeded, message: 'ok' }), {
      now: () => times.shift() ?? NOW,
    });
    await reconcileWithShell(h.shell, 'ns/obj', context());
    expect(h.writes[0]?.status.conditions?.[0]?.lastTransitionTime).toBe('2026-01-01T00:00:07.000Z');
  });

  it("emits the pass's events, then the problem's Warning, then the kind's status events", async () => {
    const h = harness(
      object(readyBefore),
      (pass) => {
        pass.events.push({ type: 'Normal', reason: EventReason.Patched, message: 'patched image' });
        throw new Stall(Reason.ImmutableFieldChanged, 'name cannot change');
      },
      {
        summarize: (pass, outcome) => {
          pass.status.syncedAt = `summarised ${outcome.kind}`;
        },
        statusEvents: (before, after) =>
          before.syncedAt === after.syncedAt
            ? []
            : [{ type: 'Normal', reason: EventReason.Found, message: after.syncedAt ?? '' }],
      },
    );
    await reconcileWithShell(h.shell, 'ns/obj', context());
    expect(briefEvents(h.events)).toEqual([
      'Normal/Patched',
      'Warning/ImmutableFieldChanged',
      'Normal/Found',
    ]);
    expect(h.writes[0]?.status.syncedAt).toBe('summarised stalled');
  });

  it.each<{ name: string; worthWriting: boolean; writes: number }>([
    { name: 'a change the kind calls worth writing is written', worthWriting: true, writes: 1 },
    { name: 'a change the kind calls not worth writing is not', worthWriting: false, writes: 0 },
  ])('$name', async ({ worthWriting, writes }) => {
    const h = harness(
      object(readyBefore),
      (pass) => {
        pass.status.syncedAt = NOW.toISOString();
        return { kind: 'ready', reason: Reason.Succeeded, message: 'ok' };
      },
      { worthWriting: () => worthWriting },
    );
    await reconcileWithShell(h.shell, 'ns/obj', context());
    expect(h.writes).toHaveLength(writes);
  });

  it('judges the write against what is stored when memory holds a status a failed write left', async () => {
    const done = () => ({ kind: 'ready', reason: Reason.Succeeded, message: 'ok' }) as const;
    const inMemory = object(readyBefore);
    const stored = object({});
    const without = harness(inMemory, done);
    await reconcileWithShell(without.shell, 'ns/obj', context());
    expect(without.writes).toEqual([]);

    const withStored = harness(inMemory, done, { stored: () => stored });
    await reconcileWithShell(withStored.shell, 'ns/obj', context());
    expect(withStored.writes).toHaveLength(1);
    expect(withStored.writes[0]?.base).toBe(inMemory);
  });

  it("writes on top of the pass's own earlier write, and only what changed since", async () => {
    const obj = object(readyBefore);
    let written: TestObject | undefined;
    const ready =
      (message: string) =>
      (pass: TestPass): Outcome => {
        written = { ...obj, status: { ...structuredClone(readyBefore), syncedAt: 'mark' } };
        pass.written = written;
        pass.status.syncedAt = 'mark';
        return { kind: 'ready', reason: Reason.Succeeded, message };
      };
    const same = harness(obj, ready('ok'));
    await reconcileWithShell(same.shell, 'ns/obj', context());
    expect(same.writes).toEqual([]);

    const moved = harness(obj, ready('ok, and more'));
    await reconcileWithShell(moved.shell, 'ns/obj', context());
    expect(moved.writes).toHaveLength(1);
    expect(moved.writes[0]?.base).toBe(written);
  });
});

describe('problemEvents', () => {
  const stalled = (message: string): Outcome => ({ kind: 'stalled', reason: Reason.Rejected, message });
  const holding = (type: string, reason: string, message: string): ObjectStatus => ({
    conditions: [cond(type, 'True', reason, message)],
  });
  it.each<{
    name: string;
    before: ObjectStatus;
    after: ObjectStatus;
    outcome: Outcome;
    events: PendingEvent[];
  }>([
    {
      name: 'a stall appears',
      before: {},
      after: holding('Stalled', 'Rejected', 'no'),
      outcome: stalled('no'),
      events: [{ type: 'Warning', reason: Reason.Rejected, message: 'no' }],
    },
    {
      name: 'the same stall',
      before: holding('Stalled', 'Rejected', 'no'),
      after: holding('Stalled', 'Rejected', 'no'),
      outcome: stalled('no'),
      events: [],
    },
    {
      name: 'a stall with a new message',
      before: holding('Stalled', 'Rejected', 'no'),
      after: holding('Stalled', 'Rejected', 'still no'),
      outcome: stalled('still no'),
      events: [{ type: 'Warning', reason: Reason.Rejected, message: 'still no' }],
    },
    {
      name: 'a stall with a new reason',
      before: holding('Stalled', 'Rejected', 'no'),
      after: holding('Stalled', 'ImmutableFieldChanged', 'no'),
      outcome: { kind: 'stalled', reason: Reason.ImmutableFieldChanged, message: 'no' },
      events: [{ type: 'Warning', reason: Reason.ImmutableFieldChanged, message: 'no' }],
    },
    {
      name: 'waiting appears (Reconciling carries it)',
      before: holding('Stalled', 'Rejected', 'no'),
      after: holding('Reconciling', 'WaitingForSecret', 'missing'),
      outcome: { kind: 'waiting', reason: Reason.WaitingForSecret, message: 'missing' },
      events: [{ type: 'Warning', reason: Reason.WaitingForSecret, message: 'missing' }],
    },
    {
      name: 'the same transient error on a retry',
      before: holding('Reconciling', 'ControlPlaneUnavailable', '503'),
      after: holding('Reconciling', 'ControlPlaneUnavailable', '503'),
      outcome: { kind: 'transient', reason: Reason.ControlPlaneUnavailable, message: '503' },
      events: [],
    },
    {
      name: 'progressing is no problem',
      before: {},
      after: holding('Reconciling', 'Progressing', 'building'),
      outcome: { kind: 'progressing', reason: Reason.Progressing, message: 'building' },
      events: [],
    },
    {
      name: 'ready is no problem',
      before: holding('Stalled', 'Rejected', 'no'),
      after: { conditions: [cond('Ready', 'True', 'Succeeded', 'ok')] },
      outcome: { kind: 'ready', reason: Reason.Succeeded, message: 'ok' },
      events: [],
    },
    {
      name: 'a stall whose condition is not there',
      before: {},
      after: {},
      outcome: stalled('no'),
      events: [],
    },
  ])('$name', ({ before, after, outcome, events }) => {
    expect(problemEvents(before, after, outcome)).toEqual(events);
  });

  it('takes only known reasons (a compile-time check)', () => {
    // @ts-expect-error an event reason that is neither an EventReason nor a Reason does not compile
    const made: PendingEvent = { type: 'Normal', reason: 'SomethingHappened', message: '' };
    expect(made.reason).toBe('SomethingHappened');
  });
});

describe('conditionChange', () => {
  const ready = (status: Condition['status'], reason: string, message: string): ObjectStatus => ({
    conditions: [cond('Ready', status, reason, message)],
  });
  it.each<{ name: string; before: ObjectStatus; after: ObjectStatus; changed: boolean }>([
    { name: 'absent both times', before: {}, after: {}, changed: false },
    {
      name: 'unchanged',
      before: ready('True', 'Succeeded', 'ok'),
      after: ready('True', 'Succeeded', 'ok'),
      changed: false,
    },
    { name: 'appeared', before: {}, after: ready('True', 'Succeeded', 'ok'), changed: true },
    { name: 'disappeared', before: ready('True', 'Succeeded', 'ok'), after: {}, changed: true },
    {
      name: 'status moved',
      before: ready('True', 'Succeeded', 'ok'),
      after: ready('False', 'Succeeded', 'ok'),
      changed: true,
    },
    {
      name: 'reason moved',
      before: ready('False', 'Progressing', 'ok'),
      after: ready('False', 'Rejected', 'ok'),
      changed: true,
    },
    {
      name: 'message moved',
      before: ready('True', 'Succeeded', 'ok'),
      after: ready('True', 'Succeeded', 'fine'),
      changed: true,
    },
    {
      name: 'only the transition time moved',
      before: { conditions: [cond('Ready', 'True', 'Succeeded', 'ok', EARLIER)] },
      after: { conditions: [cond('Ready', 'True', 'Succeeded', 'ok', NOW.toISOString())] },
      changed: false,
    },
  ])('$name', ({ before, after, changed }) => {
    const change = conditionChange(before, after, 'Ready');
    if (!changed) {
      expect(change).toBeUndefined();
      return;
    }
    expect(change).toEqual({ was: before.conditions?.[0], now: after.conditions?.[0] });
  });
});
