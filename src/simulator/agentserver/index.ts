/**
 * One simulated deployment's agent server (seeds/001_…): threads, runs, streams, crons, assistants and
 * run-completion webhooks, in memory. The simulator mounts it at `/deployments/{id}`; a test may also
 * serve it from a bare HTTP server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply, HttpError, parseJsonBody, type Reply, Router, readBody, send } from '../http.ts';
import { defaultAssistants } from './assistants.ts';
import {
  type AgentServerConfig,
  AgentServerConfigSchema,
  DEFAULT_ERROR_MARKER,
  DEFAULT_GRAPH_ID,
  resolveWebhookHeaders,
  StartupError,
} from './config.ts';
import { nextAfter } from './graph.ts';
import { agentServerRoutes, isStreamBody } from './routes.ts';
import { RunEngine, type RunOutcome } from './runs.ts';
import { ThreadStore } from './threads.ts';
import { refuseWebhookUrl } from './webhook-url.ts';
import { postWebhook, type WebhookDelivery, webhookPayload } from './webhooks.ts';

export type { AgentServerConfig } from './config.ts';
export { AgentServerConfigSchema } from './config.ts';
export type { WebhookDelivery } from './webhooks.ts';

export interface AgentServerOptions {
  deploymentId: string;
  config?: AgentServerConfig;
  /** The deployment's environment (its secrets, name to value): `webhooks.headers` templates read it. */
  env?: () => Readonly<Record<string, string>>;
  /** When given, every request must carry an `X-Api-Key` it accepts. */
  isApiKeyValid?: (key: string) => boolean;
  /** The deployment's URL, against which relative (loopback) webhook URLs resolve. */
  baseUrl?: () => string;
  fetch?: typeof fetch;
  log?: (line: string) => void;
  /** Told about each answered request; `route` is the matched template, e.g. `/threads/{thread_id}`. */
  onRequest?: (record: { method: string; route: string; path: string; status: number }) => void;
}

export interface AgentServer {
  /** Serves one request; `subPath` is the path below the deployment's URL, with its query. */
  handle(req: IncomingMessage, res: ServerResponse, subPath: string): Promise<void>;
  /**
   * Replaces the configuration, as a redeploy with a new graph configuration file would: the count of
   * runs `graph.degradeAfterRuns` reads starts over.
   */
  configure(config: AgentServerConfig): void;
  config(): AgentServerConfig;
  /** Why the server does not start (a header template that cannot resolve), or undefined. */
  startupError(): string | undefined;
  deliveries(): WebhookDelivery[];
  /** Runs started since the configuration was applied or the count reset. */
  runsStarted(): number;
  /** The count of runs starts over: a degraded server serves `degradeAfterRuns` good runs again. */
  resetRunCount(): void;
  close(): void;
}

export function createAgentServer(options: AgentServerOptions): AgentServer {
  let config = AgentServerConfigSchema.parse(options.config ?? {});
  const createdAt = new Date().toISOString();
  const env = options.env ?? (() => ({}));
  const log = options.log ?? (() => {});
  const fetchImpl = options.fetch ?? fetch;
  const deliveries: WebhookDelivery[] = [];
  const threads = new ThreadStore(nextAfter);

  const headersOrError = (): { headers: Record<string, string> } | { error: string } => {
    try {
      return { headers: resolveWebhookHeaders(config.webhooks, env()) };
    } catch (error) {
      if (error instanceof StartupError) return { error: error.message };
      throw error;
    }
  };

  const deliver = async (outcome: RunOutcome): Promise<void> => {
    const url = outcome.webhook;
    if (!url) return;
    const record = (entry: Omit<WebhookDelivery, 'run_id' | 'url'>) => {
      deliveries.push({ run_id: outcome.run.run_id, url, ...entry });
      log(`webhook for run ${outcome.run.run_id}: ${entry.outcome}${entry.status ? ` ${entry.status}` : ''}`);
    };
    if (config.http?.disable_webhooks) return record({ outcome: 'disabled' });
    const refusal = refuseWebhookUrl(url, config.webhooks);
    if (refusal) return record({ outcome: 'failed', reason: refusal });
    const started = headersOrError();
    if ('error' in started) return record({ outcome: 'failed', reason: started.error });
    const base = options.baseUrl?.();
    if (url.startsWith('/') && !base)
      return record({ outcome: 'failed', reason: 'No base URL for a loopback webhook' });
    try {
      const target = url.startsWith('/') ? `${base}${url}` : url;
      const { status } = await postWebhook(target, webhookPayload(outcome), started.headers, fetchImpl);
      record({ outcome: 'delivered', status });
    } catch (error) {
      record({ outcome: 'failed', reason: error instanceof Error ? error.message : String(error) });
    }
  };

  const runs = new RunEngine({
    threads,
    settings: () => ({
      delayMs: config.graph?.delayMs ?? 0,
      slowMs: config.graph?.slowMs ?? 0,
      fail: config.graph?.fail ?? false,
      degradeAfterRuns: config.graph?.degradeAfterRuns,
      errorMarker: config.graph?.errorMarker ?? DEFAULT_ERROR_MARKER,
      errorMessage: config.graph?.errorMessage ?? 'Simulated graph failure',
      runTimeoutMs: config.runTimeoutMs,
    }),
    onComplete: (outcome) => void deliver(outcome),
  });
  const router = new Router(
    agentServerRoutes({
      deploymentId: options.deploymentId,
      threads,
      runs,
      assistants: () =>
        defaultAssistants(options.deploymentId, config.graphs ?? [DEFAULT_GRAPH_ID], createdAt),
      crons: new Map(),
      config: () => config,
    }),
  );

  const authenticate = (req: IncomingMessage) => {
    if (!options.isApiKeyValid) return;
    const key = req.headers['x-api-key'];
    const value = Array.isArray(key) ? key[0] : key;
    if (value === undefined) throw new HttpError(401, 'Not authenticated: send X-Api-Key');
    if (!options.isApiKeyValid(value)) throw new HttpError(403, 'Invalid API key');
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, subPath: string): Promise<void> => {
    const method = req.method ?? 'GET';
    const target = new URL(subPath, 'http://agent-server.invalid');
    const match = router.match(method, target.pathname);
    const route = match.kind === 'found' ? match.route.template : target.pathname;
    let reply: Reply;
    try {
      const raw = await readBody(req);
      // A server that did not start answers nothing else, health check included.
      const started = headersOrError();
      if ('error' in started) throw new HttpError(503, `Agent server did not start: ${started.error}`);
      authenticate(req);
      if (match.kind !== 'found') {
        throw new HttpError(
          match.kind === 'none' ? 404 : 405,
          match.kind === 'none' ? 'Not Found' : 'Method Not Allowed',
        );
      }
      reply = await match.route.handler({
        method,
        path: target.pathname,
        params: match.params,
        query: target.searchParams,
        body: parseJsonBody(raw),
        headers: req.headers,
      });
    } catch (error) {
      reply = errorReply(error);
    }
    options.onRequest?.({ method, route, path: target.pathname, status: reply.status });
    if (isStreamBody(reply.body)) {
      await reply.body.stream.pipe(res, ['metadata', { run_id: reply.body.run.run_id, attempt: 1 }]);
      return;
    }
    send(res, reply.status, reply.body === undefined ? undefined : JSON.stringify(reply.body), reply.headers);
  };

  return {
    handle,
    configure: (next) => {
      config = AgentServerConfigSchema.parse(next);
      runs.resetRunCount();
    },
    config: () => structuredClone(config),
    startupError: () => {
      const started = headersOrError();
      return 'error' in started ? started.error : undefined;
    },
    deliveries: () => deliveries.map((d) => ({ ...d })),
    runsStarted: () => runs.runsStarted(),
    resetRunCount: () => runs.resetRunCount(),
    close: () => runs.close(),
  };
}
