/**
 * The agentServer provider: `runs` runs against the revision's agent server, at the same time, each on
 * a fresh thread; the result is {successRate (0 to 1), p50Ms, p95Ms} over them. The calls are the
 * verification's (verification/agent-server-client.ts) under its rules: which key goes to which URL
 * (caller.ts), the controller's key only to allowed hosts (--agent-server-allowed-hosts), and calls that
 * are not the controller's over connections refusing internal addresses. A URL the namespace chose
 * (external_image's customUrl) must also be under an analysis URL prefix (--analysis-allowed-urls), as
 * every URL a namespace names for its analysis is.
 *
 * A run that ends in another status than success, or that does not end within the deadline, is
 * unsuccessful; its latency runs from its creation to its end (or the deadline). A run that could not be
 * created counts as unsuccessful without a latency; when no run could be, the measurement is Error.
 */
import type { Dispatcher } from 'undici';
import type { AgentServerProvider } from '../../api/analysis.ts';
import { DEFAULT_AGENT_SERVER_RUNS } from '../../api/analysis.ts';
import type { Credentials } from '../../controlplane/credentials.ts';
import { AbortScope } from '../../lib/abort-scope.ts';
import { cleanPeerText } from '../../lib/peer-text.ts';
import { AgentServerClient, AgentServerError } from '../../verification/agent-server-client.ts';
import { parseAgentServerUrl } from '../../verification/agent-server-url.ts';
import { type UrlChosenBy, type VerificationKeyRead, verificationCaller } from '../../verification/caller.ts';
import type { HostAllowList } from '../../verification/host-allow-list.ts';
import { DEFAULT_INPUT } from '../../verification/settings.ts';
import { CREATED_BY } from '../../verification/verifier.ts';
import type { ProviderResult } from '../outcome.ts';
import type { AnalysisUrlPolicy } from './allowed-urls.ts';

export const DEFAULT_RUN_DEADLINE_MS = 30_000;

/** The deployment whose revision is measured, as the verification sees it. */
export interface AgentServerTarget {
  namespace: string;
  name: string;
  /** The deployment's URL (status.url). */
  url: string | undefined;
  urlChosenBy: UrlChosenBy;
  credentials: Credentials;
  credentialsOwner: 'controller' | 'namespace';
  /** spec.verification.credentialsSecretRef as read, when the spec names one. */
  verificationKey?: VerificationKeyRead | undefined;
}

export interface AgentServerContext {
  analysisUrls: AnalysisUrlPolicy;
  /** Hosts the controller's own credentials may be sent to (the verification's). */
  allowedHosts: HostAllowList;
  /** Connections for calls with the controller's credentials; default: the global dispatcher. */
  controllerDispatcher?: Dispatcher | undefined;
  /** Connections refusing internal addresses (the verification's policy), for every other call. */
  guardedDispatcher: Dispatcher;
  /** The whole measurement ends within this. */
  deadlineMs?: number;
  /** A monotonic clock in milliseconds (default performance.now). */
  clock?: () => number;
  signal?: AbortSignal | undefined;
}

type RunEnd = { started: false; error: AgentServerError } | { started: true; success: boolean; ms: number };

/** The nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

function refusal(
  target: AgentServerTarget,
  ctx: AgentServerContext,
  controllers: boolean,
): string | undefined {
  if (!target.url) return 'the deployment has no URL to measure (status.url is empty)';
  const shown = cleanPeerText(target.url, 120);
  const parsed = parseAgentServerUrl(target.url);
  if ('problem' in parsed) return `the deployment's URL ${shown} is refused: ${parsed.problem}`;
  if (controllers && !ctx.allowedHosts.allows(target.url)) {
    return `the deployment's URL ${shown} is not on the agent-server host allow-list (--agent-server-allowed-hosts), so the controller's credentials are not sent there; no request was made`;
  }
  if (target.urlChosenBy === 'namespace') {
    const why = ctx.analysisUrls.refusal(target.url);
    if (why) return `the deployment's URL ${shown} is refused: ${why}`;
  }
  return undefined;
}

/** One measurement: `runs` runs on fresh threads, their success rate and latencies. */
export async function measureAgentServer(
  provider: AgentServerProvider,
  field: string,
  target: AgentServerTarget,
  ctx: AgentServerContext,
): Promise<ProviderResult> {
  const caller = verificationCaller(target);
  const controllers = caller.kind === 'controller';
  const refused = refusal(target, ctx, controllers);
  if (refused) return { error: `${field}: ${refused}` };
  const deadlineMs = ctx.deadlineMs ?? DEFAULT_RUN_DEADLINE_MS;
  const clock = ctx.clock ?? (() => performance.now());
  const dispatcher = controllers ? ctx.controllerDispatcher : ctx.guardedDispatcher;
  // Every call in flight at the deadline ends there: its run counts as unsuccessful.
  const scope = new AbortScope([ctx.signal], deadlineMs);
  const client = new AgentServerClient({
    url: target.url as string,
    credentials: caller.kind === 'keyless' ? undefined : caller.key,
    signal: scope.signal,
    quoteAnswers: controllers,
    timeoutMs: deadlineMs,
    ...(dispatcher ? { dispatcher } : {}),
  });
  const metadata = {
    created_by: CREATED_BY,
    agentdeployment: `${target.namespace}/${target.name}`,
    analysis: true,
  };
  const begin = clock();
  const oneRun = async (): Promise<RunEnd> => {
    let started = clock();
    let threadId: string;
    let runId: string;
    try {
      threadId = await client.createThread(metadata);
      started = clock();
      runId = (
        await client.createRun(threadId, {
          assistant_id: provider.assistantId,
          input: provider.input ?? DEFAULT_INPUT,
          metadata,
        })
      ).run_id;
    } catch (err) {
      if (err instanceof AgentServerError) return { started: false, error: err };
      throw err;
    }
    try {
      const joined = await client.join(threadId, runId, Math.max(1, deadlineMs - (clock() - begin)));
      if (!joined.done) return { started: true, success: false, ms: clock() - started };
      const run = await client.getRun(threadId, runId);
      return { started: true, success: run.status === 'success', ms: clock() - started };
    } catch (err) {
      if (err instanceof AgentServerError) return { started: true, success: false, ms: clock() - started };
      throw err;
    }
  };
  const runs = provider.runs ?? DEFAULT_AGENT_SERVER_RUNS;
  let ends: RunEnd[];
  try {
    ends = await Promise.all(Array.from({ length: runs }, oneRun));
  } finally {
    scope.end();
  }
  const notStarted = ends.filter((e) => !e.started);
  const first = notStarted[0];
  if (first && !first.started && (first.error.refused || notStarted.length === runs)) {
    return { error: `${field}: no run could be created: ${cleanPeerText(first.error.message, 200)}` };
  }
  const latencies = ends.flatMap((e) => (e.started ? [Math.round(e.ms)] : [])).sort((a, b) => a - b);
  const successes = ends.filter((e) => e.started && e.success).length;
  return {
    value: {
      successRate: successes / runs,
      p50Ms: percentile(latencies, 0.5),
      p95Ms: percentile(latencies, 0.95),
    },
  };
}
