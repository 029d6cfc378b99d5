import { describe, expect, it } from 'vitest';
import { analysisLines } from './analysis-view.ts';
import type { VerbObject } from './objects.ts';

const obj = (analysis: unknown): VerbObject =>
  ({ metadata: { name: 'agent' }, status: analysis === undefined ? {} : { analysis } }) as VerbObject;

describe('analysisLines', () => {
  it('no analysis: no line', () => {
    expect(analysisLines(obj(undefined))).toEqual([]);
  });

  it("the phase, then each metric's counts and last measurement, cleaned", () => {
    const lines = analysisLines(
      obj({
        revisionId: 'r-2',
        phase: 'Running',
        nextMeasurementAt: '2026-06-01T00:01:00.000Z',
        metrics: [
          {
            name: 'errors',
            measured: 2,
            successful: 1,
            failed: 0,
            inconclusive: 1,
            error: 1,
            measurements: [{ outcome: 'Error', message: 'GET refused\u001b[31m' }],
          },
          { name: 'latency', dryRun: true, measured: 0, measurements: [] },
        ],
      }),
    );
    expect(lines).toEqual([
      '  analysis of revision r-2: Running, next measurement at 2026-06-01T00:01:00.000Z',
      expect.stringMatching(
        /^ {4}errors: 2 measured, 1 successful, 0 failed, 1 inconclusive, 1 errors; last Error \(GET refused/,
      ),
      '    latency (dry run): 0 measured, 0 successful, 0 failed, 0 inconclusive, 0 errors',
    ]);
    expect(lines.join('\n')).not.toContain('\u001b');
  });
});
