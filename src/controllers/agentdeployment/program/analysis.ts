/**
 * The analysis stage: the gate `analysis` asks for the metrics that are due to be measured (a `measure`
 * verdict); each is measured by its provider (src/analysis/analyst.ts), judged by its conditions, and
 * recorded in status.analysis (progress.ts decides what follows). The result goes into the facts, and
 * the chain decides again. Past the namespace's rate bound nothing is measured: the pass looks again.
 */

import { providerOf } from '../../../analysis/analyst.ts';
import { advanceAnalysis } from '../../../analysis/progress.ts';
import type { AgentDeploymentStatus } from '../../../api/agentdeployment.ts';
import type { Measurement } from '../../../api/analysis.ts';
import { learnAnalysis } from '../../../reconcile/agentdeployment/advance.ts';
import type { AgentDeploymentFacts } from '../../../reconcile/agentdeployment/facts.ts';
import type { FinalVerdict } from '../../../reconcile/agentdeployment/verdict.ts';
import { readVerificationKey } from '../../../verification/caller.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from '../types.ts';
import { resolvedOf } from './gather.ts';

type MeasureVerdict = Extract<FinalVerdict, { kind: 'measure' }>;

/** Measures what `verdict` names; `throttledForMs` when the rate bound let nothing be measured. */
export async function measureAnalysis(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  facts: AgentDeploymentFacts,
  verdict: MeasureVerdict,
): Promise<{ throttledForMs?: number }> {
  const { spec } = pass;
  const current = facts.object.status.analysis;
  if (!spec.analysis || !current) throw new Error('measured without spec.analysis or status.analysis');
  // Loaded here, not at start: the CEL evaluator only for a controller whose objects ask for analysis.
  const { compileMetrics, judge, measurementOf } = await import('../../../analysis/outcome.ts');
  const compiled = compileMetrics(spec.analysis.metrics);
  const namespace = pass.obj.metadata.namespace ?? '';
  const { deployment, revision } = verdict;
  const keyRef = spec.verification?.credentialsSecretRef;
  const target = {
    namespace,
    vars: { deploymentId: deployment.id, revisionId: revision.id },
    agentServer: {
      namespace,
      name: pass.obj.metadata.name,
      url: deployment.source_config.custom_url ?? undefined,
      urlChosenBy: deployment.source === 'repo_host' ? ('platform' as const) : ('namespace' as const),
      credentials: resolvedOf(facts).credentials,
      credentialsOwner: spec.credentialsSecretRef ? ('namespace' as const) : ('controller' as const),
      verificationKey: keyRef && readVerificationKey(keyRef.name, facts.secrets?.byName.get(keyRef.name)),
    },
    readSecret: async (name: string, key: string) => (await deps.readSecret(namespace, name))?.[key],
    signal: pass.deadline,
  };
  const due = spec.analysis.metrics
    .map((metric, index) => ({ metric, index }))
    .filter(({ metric }) => verdict.metrics.includes(metric.name));
  const results = await Promise.all(
    due.map(({ metric, index }) => deps.analyst.measure(metric, index, target)),
  );
  const at = deps.now();
  const measured: Record<string, Measurement> = {};
  let throttledForMs: number | undefined;
  results.forEach((result, i) => {
    const { metric, index } = due[i] as (typeof due)[number];
    if ('throttledForMs' in result) {
      throttledForMs = Math.min(throttledForMs ?? result.throttledForMs, result.throttledForMs);
      return;
    }
    const measurement = measurementOf(
      at,
      result,
      judge(compiled[index] as (typeof compiled)[number], result),
    );
    measured[metric.name] = measurement;
    deps.analyst.counted(measurement.outcome, providerOf(metric));
  });
  if (Object.keys(measured).length === 0) return throttledForMs === undefined ? {} : { throttledForMs };
  learnAnalysis(facts, advanceAnalysis(spec.analysis, current, measured, at).status);
  keepAnalysis(pass.status, facts.object.status);
  return {};
}

/** What the analysis changed in the facts' status, into the status the pass writes. */
export function keepAnalysis(into: AgentDeploymentStatus, from: AgentDeploymentStatus): void {
  for (const key of [
    'analysis',
    'history',
    'lastGoodRevision',
    'lastHandledPromoteAt',
    'lastHandledAbortAt',
    'analysisRequestRefused',
  ] as const) {
    if (from[key] === undefined) delete into[key];
    else (into as Record<string, unknown>)[key] = structuredClone(from[key]);
  }
}
