import { describe, expect, it } from 'vitest';
import type { Analysis, AnalysisStatus, Measurement, MeasurementOutcome } from '../api/analysis.ts';
import {
  abortAnalysis,
  advanceAnalysis,
  CONSECUTIVE_ERROR_LIMIT,
  promoteAnalysis,
  startAnalysis,
} from './progress.ts';

const T0 = new Date('2026-11-29T00:00:00Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);

const metric = (name: string, dryRun = false) => ({
  name,
  web: { url: 'https://m.example.com', jsonPath: '{$.x}' },
  successCondition: 'result',
  ...(dryRun ? { dryRun } : {}),
});

const spec = (over: Partial<Analysis> = {}): Analysis => ({
  interval: '30s',
  count: 3,
  metrics: [metric('a')],
  ...over,
});

const m = (outcome: MeasurementOutcome, s = 0): Measurement => ({ at: at(s).toISOString(), outcome });

/** Feeds the outcomes, one round per entry (each a metric → outcome map), 30s apart. */
function run(a: Analysis, rounds: Record<string, MeasurementOutcome>[]) {
  let status: AnalysisStatus = startAnalysis(a, 'rev-1', T0);
  let step = advanceAnalysis(a, status, {}, T0);
  rounds.forEach((round, i) => {
    const measured = Object.fromEntries(Object.entries(round).map(([k, o]) => [k, m(o, i * 30)]));
    step = advanceAnalysis(a, status, measured, at(i * 30));
    status = step.status;
  });
  return step;
}

const S = 'Successful' as const;
const F = 'Failed' as const;
const I = 'Inconclusive' as const;
const E = 'Error' as const;

describe('advanceAnalysis: the decision after each round', () => {
  const cases: [string, Analysis, Record<string, MeasurementOutcome>[], string][] = [
    ['nothing measured yet', spec(), [], 'measure'],
    ['short of count', spec(), [{ a: S }, { a: S }], 'measure'],
    ['count reached', spec(), [{ a: S }, { a: S }, { a: S }], 'successful'],
    ['one failure past limit 0', spec(), [{ a: S }, { a: F }], 'failed'],
    ['one failure within limit 1', spec({ failureLimit: 1 }), [{ a: F }, { a: S }, { a: S }], 'successful'],
    ['two failures past limit 1', spec({ failureLimit: 1 }), [{ a: F }, { a: F }], 'failed'],
    ['an inconclusive past limit 0', spec(), [{ a: I }], 'inconclusive'],
    [
      'an inconclusive within limit 1',
      spec({ inconclusiveLimit: 1 }),
      [{ a: I }, { a: S }, { a: S }],
      'successful',
    ],
    ['errors do not count toward count', spec(), [{ a: E }, { a: S }, { a: S }], 'measure'],
    ['an error then enough successes', spec(), [{ a: E }, { a: S }, { a: S }, { a: S }], 'successful'],
    [
      `${CONSECUTIVE_ERROR_LIMIT} errors in a row are tolerated`,
      spec(),
      [{ a: E }, { a: E }, { a: E }, { a: E }],
      'measure',
    ],
    [
      `${CONSECUTIVE_ERROR_LIMIT + 1} errors in a row fail`,
      spec(),
      [{ a: E }, { a: E }, { a: E }, { a: E }, { a: E }],
      'failed',
    ],
    [
      'a measurement between errors resets the run',
      spec({ count: 10 }),
      [{ a: E }, { a: E }, { a: E }, { a: E }, { a: S }, { a: E }, { a: E }, { a: E }, { a: E }],
      'measure',
    ],
    [
      'a dry-run failure never decides',
      spec({ metrics: [metric('a'), metric('d', true)] }),
      [{ a: S, d: F }],
      'measure',
    ],
    [
      'a dry-run metric does not hold completion',
      spec({ count: 1, metrics: [metric('a'), metric('d', true)] }),
      [{ a: S, d: E }],
      'successful',
    ],
    [
      'a dry-run inconclusive never pauses',
      spec({ metrics: [metric('a'), metric('d', true)] }),
      [
        { a: S, d: I },
        { a: S, d: I },
        { a: S, d: I },
      ],
      'successful',
    ],
    [
      'only dry runs: complete at count',
      spec({ count: 2, metrics: [metric('d', true)] }),
      [{ d: F }, { d: F }],
      'successful',
    ],
    [
      'every deciding metric needs count',
      spec({ count: 2, metrics: [metric('a'), metric('b')] }),
      [
        { a: S, b: E },
        { a: S, b: S },
      ],
      'measure',
    ],
    [
      'failure wins over inconclusive',
      spec({ metrics: [metric('a'), metric('b')] }),
      [{ a: I, b: F }],
      'failed',
    ],
  ];
  it.each(cases)('%s', (_what, a, rounds, kind) => {
    expect(run(a, rounds).decision.kind).toBe(kind);
  });
});

describe('advanceAnalysis: the status it records', () => {
  it('counts each outcome and keeps the last measurements, bounded', () => {
    const a = spec({ count: 20, failureLimit: 20 });
    const rounds = Array.from({ length: 12 }, (_, i) => ({ a: i % 2 ? F : S }));
    const { status, decision } = run(a, [...rounds, { a: E }]);
    const metric = status.metrics[0];
    expect(metric).toMatchObject({
      measured: 12,
      successful: 6,
      failed: 6,
      inconclusive: 0,
      error: 1,
      consecutiveErrors: 1,
    });
    expect(metric?.measurements).toHaveLength(10);
    expect(metric?.measurements.at(-1)?.outcome).toBe('Error');
    expect(decision).toEqual({ kind: 'measure', at: at(12 * 30 + 30).toISOString(), metrics: ['a'] });
  });

  it('starts with the first measurement due now', () => {
    const status = startAnalysis(spec(), 'rev-1', T0);
    expect(advanceAnalysis(spec(), status, {}, at(5)).decision).toEqual({
      kind: 'measure',
      at: T0.toISOString(),
      metrics: ['a'],
    });
  });

  it('ends with the phase, the time and the reason, nothing due', () => {
    const { status } = run(spec(), [{ a: F }]);
    expect(status).toMatchObject({ phase: 'Failed', completedAt: at(0).toISOString() });
    expect(status.message).toBe('metric a failed 1 of 1 measurements, more than failureLimit 0');
    expect(status.nextMeasurementAt).toBeUndefined();
  });

  it('leaves an ended analysis as it is', () => {
    const { status } = run(spec(), [{ a: F }]);
    expect(advanceAnalysis(spec(), status, { a: m(S) }, at(99))).toEqual({
      status,
      decision: { kind: 'failed', message: status.message },
    });
  });

  it('follows the spec: a metric added starts at zero, a removed one goes', () => {
    const { status } = run(spec({ metrics: [metric('a'), metric('b')] }), [{ a: S, b: S }]);
    const next = advanceAnalysis(spec({ metrics: [metric('a'), metric('c')] }), status, {}, at(10)).status;
    expect(next.metrics.map((x) => [x.name, x.measured])).toEqual([
      ['a', 1],
      ['c', 0],
    ]);
  });

  it('does not measure a metric past its count', () => {
    const a = spec({ count: 1, metrics: [metric('a'), metric('b')] });
    const { status } = run(a, [
      { a: S, b: E },
      { a: S, b: S },
    ]);
    expect(status.metrics.map((x) => x.measured)).toEqual([1, 1]);
  });
});

describe('promote and abort', () => {
  const inconclusive = run(spec(), [{ a: I }]).status;
  const running = run(spec(), [{ a: S }]).status;
  const failed = run(spec(), [{ a: F }]).status;
  const successful = run(spec({ count: 1 }), [{ a: S }]).status;
  const cases: [string, AnalysisStatus, 'promote' | 'abort', string][] = [
    ['promote an inconclusive one', inconclusive, 'promote', 'Successful'],
    ['promote a running one', running, 'promote', 'Successful'],
    ['abort a running one', running, 'abort', 'Failed'],
    ['abort an inconclusive one', inconclusive, 'abort', 'Failed'],
    ['promote a failed one', failed, 'promote', 'refused'],
    ['abort a successful one', successful, 'abort', 'refused'],
  ];
  it.each(cases)('%s', (_what, status, verb, phase) => {
    const next = (verb === 'promote' ? promoteAnalysis : abortAnalysis)(status, at(99));
    expect('refused' in next ? 'refused' : next.phase).toBe(phase);
    if (!('refused' in next)) {
      expect(next.completedAt).toBe(at(99).toISOString());
      expect(next.nextMeasurementAt).toBeUndefined();
    }
  });
});
