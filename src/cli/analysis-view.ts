/**
 * status.analysis as `kubectl agd status` prints it: a line for the analysis (its revision and phase)
 * and one per metric (its counts and last measurement). Every string from the cluster is cleaned.
 */

import { clean } from './object-state.ts';
import type { VerbObject } from './objects.ts';

interface MetricView {
  name: string;
  dryRun?: boolean | undefined;
  measured?: number | undefined;
  successful?: number | undefined;
  failed?: number | undefined;
  inconclusive?: number | undefined;
  error?: number | undefined;
  measurements?: { at?: string; outcome?: string; value?: string; message?: string }[] | undefined;
}

interface AnalysisView {
  revisionId?: string;
  phase?: string;
  message?: string;
  nextMeasurementAt?: string;
  metrics?: MetricView[];
}

const analysisOf = (obj: VerbObject): AnalysisView | undefined =>
  (obj.status as { analysis?: AnalysisView } | undefined)?.analysis;

/** The lines, or none when the object has no analysis. */
export function analysisLines(obj: VerbObject): string[] {
  const a = analysisOf(obj);
  if (!a) return [];
  const next =
    a.phase === 'Running' && a.nextMeasurementAt
      ? `, next measurement at ${clean(a.nextMeasurementAt, 40)}`
      : '';
  const why = a.message ? `: ${clean(a.message)}` : '';
  const lines = [`  analysis of revision ${clean(a.revisionId, 64)}: ${clean(a.phase, 20)}${why}${next}`];
  for (const m of a.metrics ?? []) {
    const last = m.measurements?.at(-1);
    const lastSaid = last
      ? `; last ${clean(last.outcome, 20)}${last.value !== undefined ? ` ${clean(last.value, 128)}` : ''}${last.message ? ` (${clean(last.message, 200)})` : ''}`
      : '';
    lines.push(
      `    ${clean(m.name, 63)}${m.dryRun ? ' (dry run)' : ''}: ${m.measured ?? 0} measured, ${m.successful ?? 0} successful, ${m.failed ?? 0} failed, ${m.inconclusive ?? 0} inconclusive, ${m.error ?? 0} errors${lastSaid}`,
    );
  }
  return lines;
}
