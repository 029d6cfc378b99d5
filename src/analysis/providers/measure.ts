/**
 * One measurement of one metric: the namespace's rate bound first (namespace-rate.ts; an agentServer
 * measurement costs one token per run), then its one provider. What the gate calls; the outcome rule
 * (outcome.ts) then judges the result.
 */
import { type AnalysisMetric, DEFAULT_AGENT_SERVER_RUNS } from '../../api/analysis.ts';
import type { ProviderResult } from '../outcome.ts';
import { type AgentServerContext, type AgentServerTarget, measureAgentServer } from './agent-server.ts';
import type { HttpContext } from './http-get.ts';
import type { NamespaceRate } from './namespace-rate.ts';
import { measurePrometheus, type QueryVariables } from './prometheus.ts';
import { measureWeb, type SecretReader } from './web.ts';

export interface MeasureEnv {
  /** The object's namespace: the rate bound's and the Secrets'. */
  namespace: string;
  rate: NamespaceRate;
  nowMs: number;
  /** web and prometheus requests. */
  http: HttpContext;
  /** Reads a key of a Secret in `namespace` (web headers). */
  readSecret: SecretReader;
  /** The deployment and the revision under analysis (prometheus queries). */
  vars: QueryVariables;
  /** The agent server of the revision, under the verification's rules. */
  agentServer: { target: AgentServerTarget; context: AgentServerContext };
}

/** A result, or, past the namespace's rate bound, when to try again (nothing was measured). */
export type MeasureResult = ProviderResult | { throttledForMs: number };

export async function measureMetric(
  metric: AnalysisMetric,
  index: number,
  env: MeasureEnv,
): Promise<MeasureResult> {
  const cost = metric.agentServer ? (metric.agentServer.runs ?? DEFAULT_AGENT_SERVER_RUNS) : 1;
  const rate = env.rate.take(env.namespace, env.nowMs, cost);
  if (!rate.allowed) return { throttledForMs: rate.retryAfterMs };
  const at = `spec.analysis.metrics[${index}]`;
  if (metric.web) return measureWeb(metric.web, `${at}.web`, { ...env.http, readSecret: env.readSecret });
  if (metric.prometheus) return measurePrometheus(metric.prometheus, `${at}.prometheus`, env.vars, env.http);
  if (metric.agentServer) {
    return measureAgentServer(
      metric.agentServer,
      `${at}.agentServer`,
      env.agentServer.target,
      env.agentServer.context,
    );
  }
  return { error: `${at} names no provider: one of agentServer, web or prometheus is required` };
}
