import { describe, expect, it } from 'vitest';
import { RunReports } from './run-reports.ts';

const report = (threadId: string, runId: string) => ({ threadId, runId, status: 'success' });

describe('RunReports', () => {
  it('keeps a report that arrives before the run id is known', () => {
    const r = new RunReports();
    r.expect('ns/a', 't1');
    expect(r.report('ns/a', report('t1', 'r1'))).toBe(true);
    r.expect('ns/a', 't1', 'r1');
    expect(r.reportFor('ns/a', 't1', 'r1')).toMatchObject({ status: 'success' });
  });

  it.each([
    ['another thread', report('t2', 'r1')],
    ['another run on the thread', report('t1', 'r2')],
  ])('refuses %s', (_name, given) => {
    const r = new RunReports();
    r.expect('ns/a', 't1', 'r1');
    expect(r.report('ns/a', given)).toBe(false);
    expect(r.reportFor('ns/a', 't1', 'r1')).toBeUndefined();
  });

  it('refuses reports for an object that waits for nothing, or no longer', () => {
    const r = new RunReports();
    expect(r.report('ns/a', report('t1', 'r1'))).toBe(false);
    r.expect('ns/a', 't1', 'r1');
    r.forget('ns/a');
    expect(r.report('ns/a', report('t1', 'r1'))).toBe(false);
  });
});
