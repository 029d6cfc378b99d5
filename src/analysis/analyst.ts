/**
 * The controller's measuring of analysis metrics (providers/measure.ts), made once per process: the
 * connections provider requests go through (every address checked against the URL allow-list's own
 * internal hosts; agent-server calls not the controller's refuse internal addresses, as the
 * verification's do), the per-namespace rate bound, and the count of measurements by outcome.
 */
import type { Dispatcher } from 'undici';
import type { AnalysisMetric, MeasurementOutcome } from '../api/analysis.ts';
import { addressGuardedAgent } from '../verification/guarded-agent.ts';
import type { HostAllowList } from '../verification/host-allow-list.ts';
import { type InternalAddressPolicy, internalAddressPolicy } from '../verification/internal-addresses.ts';
import type { AgentServerTarget } from './providers/agent-server.ts';
import { type AnalysisUrlPolicy, analysisDispatcher } from './providers/allowed-urls.ts';
import { type MeasureResult, measureMetric } from './providers/measure.ts';
import { NamespaceRate } from './providers/namespace-rate.ts';
import type { QueryVariables } from './providers/prometheus.ts';
import type { SecretReader } from './providers/web.ts';

/** What one object's measurement is about: its namespace, its revision, its agent server. */
export interface MeasureTarget {
  namespace: string;
  vars: QueryVariables;
  agentServer: AgentServerTarget;
  readSecret: SecretReader;
  signal?: AbortSignal | undefined;
}

export interface Analyst {
  measure(metric: AnalysisMetric, index: number, target: MeasureTarget): Promise<MeasureResult>;
  /** A measurement taken, counted by outcome and provider (no per-object label). */
  counted(outcome: MeasurementOutcome, provider: string): void;
  close(): Promise<void>;
}

export interface AnalystOptions {
  urls: AnalysisUrlPolicy;
  /** Hosts the controller's own credentials may be sent to (--agent-server-allowed-hosts). */
  allowedHosts: HostAllowList;
  /** Internal addresses an agent-server call not the controller's may reach (the verification's). */
  internalAddresses?: InternalAddressPolicy | undefined;
  /** Connections for agent-server calls with the controller's credentials. */
  controllerDispatcher?: Dispatcher | undefined;
  rate?: NamespaceRate;
  now?: () => number;
  onMeasurement?: (outcome: MeasurementOutcome, provider: string) => void;
}

/** The provider a metric names, as the measurements counter labels it. */
export const providerOf = (metric: AnalysisMetric): string =>
  metric.agentServer ? 'agentServer' : metric.web ? 'web' : 'prometheus';

export function analyst(options: AnalystOptions): Analyst {
  const http = analysisDispatcher(options.urls);
  const guarded = addressGuardedAgent(options.internalAddresses ?? internalAddressPolicy(), {
    connections: 8,
    keepAliveTimeout: 30_000,
    connectTimeout: 5_000,
  });
  const rate = options.rate ?? new NamespaceRate();
  const now = options.now ?? Date.now;
  return {
    measure: (metric, index, target) =>
      measureMetric(metric, index, {
        namespace: target.namespace,
        rate,
        nowMs: now(),
        http: { policy: options.urls, dispatcher: http, signal: target.signal },
        readSecret: target.readSecret,
        vars: target.vars,
        agentServer: {
          target: target.agentServer,
          context: {
            analysisUrls: options.urls,
            allowedHosts: options.allowedHosts,
            controllerDispatcher: options.controllerDispatcher,
            guardedDispatcher: guarded,
            signal: target.signal,
          },
        },
      }),
    counted: (outcome, provider) => options.onMeasurement?.(outcome, provider),
    async close() {
      await Promise.all([http.close(), guarded.close()]);
    },
  };
}
