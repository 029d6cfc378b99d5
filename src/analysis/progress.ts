/**
 * An analysis's progress, pure: from spec.analysis, the recorded status.analysis, the measurements just
 * taken (one per metric at most) and the clock, the next status.analysis and what happens next. Its
 * whole state lives in status, so a restart or another replica continues it where it stands.
 *
 * The rules are Argo Rollouts' (its analysis controller's assessMetricStatus), per metric:
 * - an Error measurement counts as an error, not as a measurement toward `count`; more than
 *   CONSECUTIVE_ERROR_LIMIT (4, Argo's default consecutiveErrorLimit) errors in a row fail the analysis,
 *   where Argo would end in its phase Error: here a revision whose metric cannot be measured is not
 *   promoted, and spec.remediation decides, as for a failure;
 * - more Failed measurements than failureLimit fail the analysis;
 * - more Inconclusive measurements than inconclusiveLimit make it Inconclusive: it waits for a person
 *   (promote or abort). Argo lets the other metrics run to their end first; here the analysis stops at
 *   once, since only a person can end it anyway;
 * - it is Successful once every metric that is not a dry run has `count` measurements (with only
 *   dry-run metrics, once they have) and no limit was passed.
 * A dry-run metric is measured and recorded like any other, and never decides.
 */
import {
  type Analysis,
  type AnalysisStatus,
  DEFAULT_ANALYSIS_INTERVAL,
  DEFAULT_FAILURE_LIMIT,
  DEFAULT_INCONCLUSIVE_LIMIT,
  MAX_KEPT_MEASUREMENTS,
  type Measurement,
  type MetricStatus,
} from '../api/analysis.ts';
import { parseDuration } from '../lib/duration.ts';

export const CONSECUTIVE_ERROR_LIMIT = 4;

export type AnalysisDecision =
  /** Measure `metrics` at `at` (now or later): those still short of `count`. */
  | { kind: 'measure'; at: string; metrics: string[] }
  | { kind: 'successful' }
  | { kind: 'failed'; message: string }
  | { kind: 'inconclusive'; message: string };

export interface AnalysisStep {
  status: AnalysisStatus;
  decision: AnalysisDecision;
}

/** An ended analysis cannot be promoted or aborted: why, in a sentence. */
export interface Refusal {
  refused: string;
}

const emptyMetric = (name: string, dryRun: boolean | undefined): MetricStatus => ({
  name,
  ...(dryRun ? { dryRun: true } : {}),
  measured: 0,
  successful: 0,
  failed: 0,
  inconclusive: 0,
  error: 0,
  consecutiveErrors: 0,
  measurements: [],
});

export function intervalMs(spec: Analysis): number {
  // Admission checks the format; a value parseDuration still refuses takes the default.
  return (
    (spec.interval && parseDuration(spec.interval)) || (parseDuration(DEFAULT_ANALYSIS_INTERVAL) as number)
  );
}

/** A new analysis of `revisionId`: Running, its first measurement due now. */
export function startAnalysis(spec: Analysis, revisionId: string, now: Date): AnalysisStatus {
  const at = now.toISOString();
  return {
    revisionId,
    phase: 'Running',
    startedAt: at,
    nextMeasurementAt: at,
    metrics: spec.metrics.map((m) => emptyMetric(m.name, m.dryRun)),
  };
}

/** The recorded metrics in the spec's order: a metric added to the spec starts at zero, a removed one goes. */
function alignedMetrics(spec: Analysis, status: AnalysisStatus): MetricStatus[] {
  const recorded = new Map(status.metrics.map((m) => [m.name, m]));
  return spec.metrics.map((m) => {
    const kept = recorded.get(m.name);
    const base = kept ? structuredClone(kept) : emptyMetric(m.name, m.dryRun);
    if (m.dryRun) base.dryRun = true;
    else delete base.dryRun;
    return base;
  });
}

function record(metric: MetricStatus, measurement: Measurement): void {
  if (measurement.outcome === 'Error') {
    metric.error += 1;
    metric.consecutiveErrors += 1;
  } else {
    metric.measured += 1;
    metric.consecutiveErrors = 0;
    if (measurement.outcome === 'Successful') metric.successful += 1;
    else if (measurement.outcome === 'Failed') metric.failed += 1;
    else metric.inconclusive += 1;
  }
  metric.measurements = [...metric.measurements, measurement].slice(-MAX_KEPT_MEASUREMENTS);
}

type Verdict = Extract<AnalysisDecision, { kind: 'failed' | 'inconclusive' }> | 'complete' | 'running';

/** What the metrics say together: failed, inconclusive, complete, or still running. */
function assess(spec: Analysis, metrics: readonly MetricStatus[]): Verdict {
  const failureLimit = spec.failureLimit ?? DEFAULT_FAILURE_LIMIT;
  const inconclusiveLimit = spec.inconclusiveLimit ?? DEFAULT_INCONCLUSIVE_LIMIT;
  const deciding = metrics.filter((m) => !m.dryRun);
  for (const m of deciding) {
    if (m.failed > failureLimit) {
      return {
        kind: 'failed',
        message: `metric ${m.name} failed ${m.failed} of ${m.measured} measurements, more than failureLimit ${failureLimit}`,
      };
    }
    if (m.consecutiveErrors > CONSECUTIVE_ERROR_LIMIT) {
      return {
        kind: 'failed',
        message: `metric ${m.name} erred ${m.consecutiveErrors} times in a row, more than ${CONSECUTIVE_ERROR_LIMIT}`,
      };
    }
  }
  for (const m of deciding) {
    if (m.inconclusive > inconclusiveLimit) {
      return {
        kind: 'inconclusive',
        message: `metric ${m.name} was inconclusive ${m.inconclusive} times, more than inconclusiveLimit ${inconclusiveLimit}: promote or abort`,
      };
    }
  }
  const judged = deciding.length > 0 ? deciding : metrics;
  return judged.every((m) => m.measured >= spec.count) ? 'complete' : 'running';
}

function decisionOf(status: AnalysisStatus, spec: Analysis): AnalysisDecision {
  switch (status.phase) {
    case 'Successful':
      return { kind: 'successful' };
    case 'Failed':
      return { kind: 'failed', message: status.message ?? 'the analysis failed' };
    case 'Inconclusive':
      return { kind: 'inconclusive', message: status.message ?? 'the analysis was inconclusive' };
    case 'Running':
      return {
        kind: 'measure',
        at: status.nextMeasurementAt ?? status.startedAt,
        metrics: status.metrics.filter((m) => m.measured < spec.count).map((m) => m.name),
      };
  }
}

function ended(
  status: AnalysisStatus,
  phase: 'Successful' | 'Failed' | 'Inconclusive',
  now: Date,
  message?: string,
): AnalysisStatus {
  const { nextMeasurementAt: _due, message: _was, ...rest } = status;
  return { ...rest, phase, completedAt: now.toISOString(), ...(message ? { message } : {}) };
}

/**
 * Records `measured` (by metric name; names the spec no longer has are dropped) and decides. An ended
 * analysis stays as it is. After measurements, the next are due an interval later.
 */
export function advanceAnalysis(
  spec: Analysis,
  status: AnalysisStatus,
  measured: Readonly<Record<string, Measurement>>,
  now: Date,
): AnalysisStep {
  if (status.phase !== 'Running') return { status, decision: decisionOf(status, spec) };
  const metrics = alignedMetrics(spec, status);
  let took = false;
  for (const m of metrics) {
    const measurement = measured[m.name];
    if (measurement && m.measured < spec.count) {
      record(m, measurement);
      took = true;
    }
  }
  const next: AnalysisStatus = {
    ...status,
    metrics,
    ...(took ? { nextMeasurementAt: new Date(now.getTime() + intervalMs(spec)).toISOString() } : {}),
  };
  const verdict = assess(spec, metrics);
  if (verdict === 'running') return { status: next, decision: decisionOf(next, spec) };
  if (verdict === 'complete') {
    const done = ended(next, 'Successful', now);
    return { status: done, decision: decisionOf(done, spec) };
  }
  const done = ended(next, verdict.kind === 'failed' ? 'Failed' : 'Inconclusive', now, verdict.message);
  return { status: done, decision: verdict };
}

/** A person accepts the revision: a Running or Inconclusive analysis becomes Successful. */
export function promoteAnalysis(status: AnalysisStatus, now: Date): AnalysisStatus | Refusal {
  if (status.phase === 'Successful' || status.phase === 'Failed') {
    return { refused: `the analysis of revision ${status.revisionId} already ended ${status.phase}` };
  }
  return ended(status, 'Successful', now, 'promoted by a person');
}

/** A person rejects the revision: a Running or Inconclusive analysis becomes Failed. */
export function abortAnalysis(status: AnalysisStatus, now: Date): AnalysisStatus | Refusal {
  if (status.phase === 'Successful' || status.phase === 'Failed') {
    return { refused: `the analysis of revision ${status.revisionId} already ended ${status.phase}` };
  }
  return ended(status, 'Failed', now, 'aborted by a person');
}
