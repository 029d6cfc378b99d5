/**
 * Whether spec.analysis's conditions compile: a fact the gate `analysis` reads through the port. The CEL
 * evaluator (outcome.ts and @bufbuild/cel, about 10 MiB of a process's memory) is loaded on the first
 * read, so a controller none of whose objects asks for an analysis never holds it.
 */
import type { Analysis } from '../api/analysis.ts';

export type ConditionsFact = { ok: true } | { ok: false; message: string };

type Outcome = Pick<typeof import('./outcome.ts'), 'compileMetrics' | 'ConditionError'>;

export async function readConditions(analysis: Analysis): Promise<ConditionsFact> {
  return conditionsWith(await import('./outcome.ts'), analysis);
}

/** The fact, with outcome.ts already loaded (tests, and readConditions). */
export function conditionsWith(outcome: Outcome, analysis: Analysis): ConditionsFact {
  try {
    outcome.compileMetrics(analysis.metrics);
    return { ok: true };
  } catch (err) {
    if (err instanceof outcome.ConditionError) return { ok: false, message: err.message };
    throw err;
  }
}
