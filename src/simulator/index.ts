/**
 * A local control plane on loopback, in memory, following the interface document (seeds/000_…) and
 * the notes that fill its gaps. Tests drive it through this API; other processes through `/_simulator/`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deployment, Listener, Revision } from '../controlplane/schemas.ts';
import type { SandboxTemplate } from '../controlplane/template-schemas.ts';
import { adminRoutes } from './admin-routes.ts';
import { agentServerAdminRoutes } from './agentserver/admin-routes.ts';
import { createAgentServerHost } from './agentserver/host.ts';
import type { AgentServer, AgentServerConfig, WebhookDelivery } from './agentserver/index.ts';
import { controlPlaneRoutes } from './control-plane-routes.ts';
import { FaultBook, type FaultRule, type Latency } from './faults.ts';
import { errorReply, Router, readBody, send } from './http.ts';
import { DEFAULT_PRESENTATION, type Presentation } from './present.ts';
import { requestServing } from './request-serving.ts';
import type { FailRevisionsRule, ScriptRevisionsRule } from './revision-scripts.ts';
import { DeploymentStore, type StoredDeployment } from './store.ts';
import { type SandboxTemplateSeed, seedTemplates, stableUuid } from './templates.ts';

export type { AgentServer, AgentServerConfig, WebhookDelivery } from './agentserver/index.ts';
export type { FaultRule } from './faults.ts';
export type { Presentation } from './present.ts';
export type { FailRevisionsRule, ScriptRevisionsRule } from './revision-scripts.ts';
export type { SandboxTemplateSeed } from './templates.ts';
export { EXAMPLE_TEMPLATES, EXAMPLES_DIR_TEMPLATE } from './templates.ts';

export interface SimulatorOptions {
  host?: string;
  port?: number;
  apiKeys?: string[];
  bearerTokens?: string[];
  tenantId?: string;
  revisionStepMs?: number;
  templates?: SandboxTemplateSeed[];
  listeners?: Listener[];
  logger?: (line: string) => void;
}

export interface RequestRecord {
  method: string;
  /** The route template, e.g. '/v2/deployments/{deployment_id}'; the path itself when none matched. */
  route: string;
  path: string;
  query: Record<string, string>;
  /** 0 while in flight, and for a dropped connection. */
  status: number;
  body?: unknown;
  /** The client's User-Agent header: which replica sent it (audit). */
  userAgent?: string;
  at: number;
}

export interface Simulator {
  url: string;
  close(): Promise<void>;
  requests(filter?: { method?: string; route?: string }): RequestRecord[];
  resetRequests(): void;
  addFault(rule: FaultRule): () => void;
  clearFaults(): void;
  setLatency(ms: Latency): void;
  failRevisions(rule: FailRevisionsRule): void;
  /** The next revision(s) pass through INTERRUPTED/UNKNOWN, or stay in a status. */
  scriptRevisions(rule: ScriptRevisionsRule): void;
  /** Any string, so a status the client does not know can be tested. */
  setDeploymentStatus(id: string, status: string): void;
  /** Any string; stops the revision's clock. False when there is no such revision. */
  setRevisionStatus(deploymentId: string, revisionId: string, status: string): boolean;
  /** While held, deletions stay in AWAITING_DELETE. */
  holdDeletions(hold: boolean): void;
  /** How responses are written: null optional fields, revealed secret values. */
  setPresentation(how: Partial<Presentation>): void;
  /** Removes a deployment at once, as someone acting outside the operator would. */
  deleteDeploymentBehindOperator(id: string): void;
  deployments(): Deployment[];
  revisions(deploymentId: string): Revision[];
  setTemplates(templates: SandboxTemplateSeed[]): void;
  /**
   * Configures the agent of every revision made from a source (an image_uri, a repo_ref or a
   * repo_commit_sha), whichever deployment serves it: before the per-deployment configuration.
   */
  configureRevisionAgent(source: string, config: AgentServerConfig): void;
  /**
   * A push to a `repo_host` deployment with `build_on_push`: a new revision of the same ref at a new
   * commit (`commitSha`, or one made up). False when the deployment does not build on push.
   */
  pushToRepository(deploymentId: string, commitSha?: string): boolean;
  /** Forgets all but the newest `keep` revisions (and the active one); redeploying one forgotten is 404. */
  pruneRevisions(deploymentId: string, keep: number): void;
  /** Configures the agent server of a deployment (by id or name, before or after it exists). */
  configureAgentServer(deployment: string, config: AgentServerConfig): void;
  agentServerConfig(deployment: string): AgentServerConfig | undefined;
  webhookDeliveries(deployment: string): WebhookDelivery[];
  /** The agent server served at the deployment's custom_url; undefined when there is no such deployment. */
  agentServer(deployment: string): AgentServer | undefined;
}

export const DEFAULT_API_KEY = 'sim-api-key';

export function defaultListeners(): Listener[] {
  const at = new Date().toISOString();
  return [
    {
      id: stableUuid('listener:default'),
      compute_type: 'k8s',
      compute_config: { k8s_namespaces: ['default'] },
      created_at: at,
      updated_at: at,
    },
  ];
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const host = opts.host ?? '127.0.0.1';
  const auth = {
    apiKeys: new Set(opts.apiKeys ?? [DEFAULT_API_KEY]),
    bearerTokens: new Set(opts.bearerTokens ?? []),
    ...(opts.tenantId !== undefined ? { tenantId: opts.tenantId } : {}),
  };
  const log = opts.logger ?? (() => {});
  let url = '';
  let records: RequestRecord[] = [];
  let latency: Latency = 0;
  let presentation: Presentation = { ...DEFAULT_PRESENTATION };
  let templates: SandboxTemplate[] = seedTemplates(opts.templates ?? []);
  const listeners = opts.listeners ?? defaultListeners();
  const faults = new FaultBook();
  const store = new DeploymentStore({
    stepMs: opts.revisionStepMs ?? 200,
    customUrlFor: (id) => `${url}/deployments/${id}`,
  });
  const hosted = (deployment: StoredDeployment | undefined) => {
    const activeSource = deployment && store.activeRevisionConfig(deployment.id);
    return deployment && (activeSource ? { ...deployment, activeSource } : deployment);
  };
  const agentServers = createAgentServerHost({
    deployment: (id) => hosted(store.get(id)),
    deployments: () => store.list().map((d) => hosted(d) ?? d),
    isApiKeyValid: (key) => auth.apiKeys.has(key),
    baseUrl: () => url,
    log,
    onRequest: (record) => {
      records.push({ ...record, query: {}, at: Date.now() });
      log(`${record.method} ${record.path} ${record.status}`);
    },
  });

  const simulator: Simulator = {
    get url() {
      return url;
    },
    close: async () => {
      store.close();
      agentServers.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    requests: (filter = {}) =>
      records
        .filter((r) => !filter.method || r.method === filter.method.toUpperCase())
        .filter((r) => !filter.route || r.route === filter.route || r.path === filter.route)
        .map((r) => ({ ...r })),
    resetRequests: () => {
      records = [];
    },
    addFault: (rule) => {
      const id = faults.add(rule);
      return () => faults.remove(id);
    },
    clearFaults: () => faults.clear(),
    setLatency: (ms) => {
      latency = ms;
    },
    failRevisions: (rule) => store.failRevisions(rule),
    scriptRevisions: (rule) => store.scriptRevisions(rule),
    setDeploymentStatus: (id, status) => store.setDeploymentStatus(id, status),
    setRevisionStatus: (deploymentId, revisionId, status) =>
      store.setRevisionStatus(deploymentId, revisionId, status),
    holdDeletions: (hold) => store.holdDeletions(hold),
    setPresentation: (how) => {
      presentation = { ...presentation, ...how };
    },
    deleteDeploymentBehindOperator: (id) => {
      store.delete(id);
    },
    deployments: () => structuredClone(store.list()),
    revisions: (deploymentId) => store.revisions(deploymentId),
    setTemplates: (seeds) => {
      templates = seedTemplates(seeds);
    },
    configureRevisionAgent: (source, config) => agentServers.configureRevisionAgent(source, config),
    pushToRepository: (id, commitSha) => store.push(id, commitSha) !== undefined,
    pruneRevisions: (id, keep) => store.pruneRevisions(id, keep),
    configureAgentServer: (deployment, config) => agentServers.configureAgentServer(deployment, config),
    agentServerConfig: (deployment) => agentServers.agentServerConfig(deployment),
    webhookDeliveries: (deployment) => agentServers.webhookDeliveries(deployment),
    agentServer: (deployment) => agentServers.agentServer(deployment),
  };

  const api = new Router(
    controlPlaneRoutes({
      store,
      templates: () => templates,
      listeners: () => listeners,
      presentation: () => presentation,
    }),
  );
  const admin = new Router([...adminRoutes(simulator), ...agentServerAdminRoutes(simulator)]);
  const { serveApi, serveAdmin } = requestServing({
    api,
    admin,
    auth,
    faults,
    latency: () => latency,
    record: (record) => records.push(record),
    log,
  });

  const server = createServer((req, res) => {
    const target = new URL(req.url ?? '/', 'http://simulator.invalid');
    if (target.pathname.startsWith('/deployments/')) {
      // Each deployment's agent server reads its own body (it may answer with a stream).
      agentServers.serve(req, res, `${target.pathname}${target.search}`).catch((error: unknown) => {
        const reply = errorReply(error);
        send(res, reply.status, JSON.stringify(reply.body));
      });
      return;
    }
    readBody(req)
      .then((raw) =>
        target.pathname.startsWith('/_simulator/')
          ? serveAdmin(req, res, target, raw)
          : serveApi(req, res, target, raw),
      )
      .catch((error: unknown) => {
        const reply = errorReply(error);
        send(res, reply.status, JSON.stringify(reply.body));
      });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  return simulator;
}
