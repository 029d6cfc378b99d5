/**
 * Runs the verifier waits for, and the webhook reports that arrived for them. In memory, on the replica
 * that started the run. A verification runs on a fresh thread, so the thread id names the run before the
 * run exists: the verifier registers the thread before creating the run, and a report that arrives before
 * the create call returns is kept. The receiver accepts a report only for a registered thread. After a
 * restart the verifier registers its thread again; until then a delivery is refused and join completes
 * the verification.
 */
export interface RunReport {
  threadId: string;
  runId: string;
  status: string;
  error?: { error?: string; message?: string };
}

export class RunReports {
  readonly #expected = new Map<string, { threadId: string; runId?: string }>();
  readonly #reports = new Map<string, RunReport>();

  /**
   * `key` (namespace/name) waits for the run on `threadId` (its id, once known, narrows it further); a
   * report of another run is dropped.
   */
  expect(key: string, threadId: string, runId?: string): void {
    this.#expected.set(key, { threadId, ...(runId ? { runId } : {}) });
    const report = this.#reports.get(key);
    if (report && (report.threadId !== threadId || (runId && report.runId !== runId)))
      this.#reports.delete(key);
  }

  /** The thread of the run `key` awaits, if any: its webhook token is valid only meanwhile. */
  awaitedThread(key: string): string | undefined {
    return this.#expected.get(key)?.threadId;
  }

  forget(key: string): void {
    this.#expected.delete(key);
    this.#reports.delete(key);
  }

  /** Records a report; false when `key` waits for no run on that thread. */
  report(key: string, report: RunReport): boolean {
    const expected = this.#expected.get(key);
    if (expected?.threadId !== report.threadId) return false;
    if (expected.runId && expected.runId !== report.runId) return false;
    this.#reports.set(key, report);
    return true;
  }

  reportFor(key: string, threadId: string, runId: string): RunReport | undefined {
    const report = this.#reports.get(key);
    return report?.threadId === threadId && report.runId === runId ? report : undefined;
  }
}
