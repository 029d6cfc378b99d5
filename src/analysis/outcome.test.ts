import { describe, expect, it } from 'vitest';
import type { AnalysisMetric } from '../api/analysis.ts';
import {
  ConditionError,
  compileMetric,
  compileMetrics,
  judge,
  MAX_RESULT_NODES,
  measurementOf,
  type ProviderResult,
} from './outcome.ts';

const metric = (successCondition: string, failureCondition?: string): AnalysisMetric => ({
  name: 'm',
  web: { url: 'https://m.example.com', jsonPath: '{$.x}' },
  successCondition,
  ...(failureCondition === undefined ? {} : { failureCondition }),
});

describe('judge: Argo Rollouts rule', () => {
  const cases: [string, string, string | undefined, ProviderResult, string][] = [
    ['provider error', 'result > 1.0', undefined, { error: 'connection refused' }, 'Error'],
    ['success only, met', 'result < 0.05', undefined, { value: 0.01 }, 'Successful'],
    ['success only, missed', 'result < 0.05', undefined, { value: 0.2 }, 'Failed'],
    ['both, success met', 'result < 0.05', 'result > 0.1', { value: 0.01 }, 'Successful'],
    ['both, failure met', 'result < 0.05', 'result > 0.1', { value: 0.5 }, 'Failed'],
    ['both, neither met', 'result < 0.05', 'result > 0.1', { value: 0.07 }, 'Inconclusive'],
    ['both true: success wins', 'result > 0.0', 'result > 0.0', { value: 1 }, 'Successful'],
    ['a map result', 'result.successRate >= 0.95', undefined, { value: { successRate: 1 } }, 'Successful'],
    ['a list result', 'result.all(x, x < 3.0)', undefined, { value: [1, 2] }, 'Successful'],
    ['integer JSON compares with an int literal', 'result < 5', undefined, { value: 3 }, 'Successful'],
    ['a missing field errs', 'result.p95Ms < 10.0', undefined, { value: { p50Ms: 1 } }, 'Error'],
    ['a non-bool yield errs', 'result', undefined, { value: 'yes' }, 'Error'],
    ['a non-bool failure yield errs', 'result > 1.0', 'result', { value: 0 }, 'Error'],
    ['a bool result', 'result', undefined, { value: true }, 'Successful'],
    ['a type name', 'type(result) == double && result > 1.0', undefined, { value: 1.5 }, 'Successful'],
  ];
  it.each(cases)('%s', (_what, success, failure, result, outcome) => {
    expect(judge(compileMetric(metric(success, failure), 0), result).outcome).toBe(outcome);
  });

  it('names the field when a condition yields no bool', () => {
    const judged = judge(compileMetric(metric('result'), 2), { value: 3 });
    expect(judged.message).toBe('spec.analysis.metrics[2].successCondition yielded a double, not a bool');
  });

  it('refuses a result too large to evaluate in bounded time', () => {
    const judged = judge(compileMetric(metric('size(result) > 0'), 0), {
      value: Array.from({ length: MAX_RESULT_NODES }, () => 1),
    });
    expect(judged).toEqual({
      outcome: 'Error',
      message: `the result holds more than ${MAX_RESULT_NODES} values`,
    });
  });
});

describe('compileMetric refuses what cannot be a condition, naming the field', () => {
  const cases: [string, string, string | undefined, string][] = [
    ['no parse', 'result <', undefined, 'spec.analysis.metrics[0].successCondition does not compile'],
    ['a number', '1 + 2', undefined, 'spec.analysis.metrics[0].successCondition yields a number or a string'],
    ['a constant', '"ok"', undefined, 'spec.analysis.metrics[0].successCondition is a constant'],
    ['a list', '[result]', undefined, 'spec.analysis.metrics[0].successCondition is a list or a map'],
    ['another variable', 'results > 1', undefined, 'spec.analysis.metrics[0].successCondition reads results'],
    [
      'a failure condition',
      'result > 1',
      'result.all(x, x.all(y, y.all(z, z > 1)))',
      'spec.analysis.metrics[0].failureCondition nests comprehensions',
    ],
  ];
  it.each(cases)('%s', (_what, success, failure, message) => {
    let thrown: unknown;
    try {
      compileMetric(metric(success, failure), 0);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConditionError);
    expect((thrown as ConditionError).message).toContain(message);
  });

  it('accepts two nested comprehensions and the variables they bind', () => {
    expect(() => compileMetric(metric('result.all(x, result.exists(y, y == x))'), 0)).not.toThrow();
  });

  it('compiles every metric, the index in the field', () => {
    expect(() => compileMetrics([metric('result'), metric('oops >')])).toThrow(
      'spec.analysis.metrics[1].successCondition does not compile',
    );
  });
});

describe('measurementOf', () => {
  const at = new Date('2026-11-29T00:00:00Z');
  it('records the result as JSON, cleaned and bounded', () => {
    const m = measurementOf(at, { value: { text: `a\u001b[31m${'x'.repeat(300)}` } }, { outcome: 'Failed' });
    expect(m.outcome).toBe('Failed');
    expect(m.value).toHaveLength(128);
    expect(m.value).not.toContain('\u001b');
  });
  it('cleans the strings inside the result: the JSON, once decoded, carries no escape either', () => {
    const m = measurementOf(at, { value: { text: 'red\u001b[2J\u202egnp.ti' } }, { outcome: 'Failed' });
    expect(m.value).not.toContain('\\u001b');
    const decoded: string = JSON.parse(m.value as string).text;
    expect([...decoded].filter((c) => c.charCodeAt(0) < 0x20 || c === '\u202e')).toEqual([]);
  });
  it('records why an error erred, cleaned', () => {
    expect(measurementOf(at, { error: 'x' }, { outcome: 'Error', message: 'bad\nline' })).toEqual({
      at: '2026-11-29T00:00:00.000Z',
      outcome: 'Error',
      message: 'bad line',
    });
  });
});
