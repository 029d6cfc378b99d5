/**
 * Mounts one agent server per simulated deployment at `/deployments/{id}`: created on first use, with
 * the deployment's secrets as its environment, and the configuration given for the source of the revision
 * it serves (an image, a ref or a commit: a bad image fails whichever deployment runs it, and stops failing
 * once another revision serves), else the one given for its id or name.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply, HttpError, send } from '../http.ts';
import type { AgentServerAdmin } from './admin-routes.ts';
import {
  type AgentServer,
  type AgentServerConfig,
  AgentServerConfigSchema,
  createAgentServer,
} from './index.ts';
import type { WebhookDelivery } from './webhooks.ts';

/** The parts of a control-plane deployment the host reads. */
export interface HostedDeployment {
  id: string;
  name: string;
  active_revision_id: string | null;
  secrets: ReadonlyArray<{ name: string; value: string }>;
  /** What the active revision was made from: image_uri, or repo_ref and repo_commit_sha. */
  activeSource?: { image_uri?: string | null; repo_ref?: string | null; repo_commit_sha?: string | null };
}

export interface AgentServerHostOptions {
  deployment(id: string): HostedDeployment | undefined;
  deployments(): HostedDeployment[];
  isApiKeyValid(key: string): boolean;
  /** The simulator's URL (deployment URLs are `${url}/deployments/{id}`). */
  baseUrl(): string;
  log?: (line: string) => void;
  onRequest?: (record: { method: string; route: string; path: string; status: number }) => void;
}

export interface AgentServerHost extends AgentServerAdmin {
  /** The agent of every revision made from this source (an image_uri, a repo_ref or a repo_commit_sha). */
  configureRevisionAgent(source: string, config: AgentServerConfig): void;
  /** Serves a request whose path starts with `/deployments/`. */
  serve(req: IncomingMessage, res: ServerResponse, pathWithQuery: string): Promise<void>;
  agentServer(deployment: string): AgentServer | undefined;
  close(): void;
}

export const DEPLOYMENT_PREFIX = /^\/deployments\/([^/?]+)(.*)$/;

export function createAgentServerHost(options: AgentServerHostOptions): AgentServerHost {
  const configs = new Map<string, AgentServerConfig>();
  const bySource = new Map<string, AgentServerConfig>();
  const servers = new Map<string, AgentServer>();
  /** The configuration each server was last given, so a new active revision reconfigures it once. */
  const applied = new Map<string, AgentServerConfig | undefined>();

  const sourceConfigFor = (deployment: HostedDeployment) => {
    const source = deployment.activeSource;
    return [source?.repo_commit_sha, source?.image_uri, source?.repo_ref]
      .map((key) => (key ? bySource.get(key) : undefined))
      .find((config) => config !== undefined);
  };
  const configFor = (deployment: HostedDeployment) =>
    sourceConfigFor(deployment) ?? configs.get(deployment.id) ?? configs.get(deployment.name);
  /** Gives the server the configuration of the revision it now serves, when that changed. */
  const follow = (deployment: HostedDeployment, server: AgentServer) => {
    const config = configFor(deployment);
    if (applied.get(deployment.id) === config) return;
    applied.set(deployment.id, config);
    server.configure(config ?? {});
  };
  const find = (idOrName: string) =>
    options.deployment(idOrName) ?? options.deployments().find((d) => d.name === idOrName);

  const serverFor = (deployment: HostedDeployment): AgentServer => {
    let server = servers.get(deployment.id);
    if (!server) {
      const id = deployment.id;
      const config = configFor(deployment);
      server = createAgentServer({
        deploymentId: id,
        ...(config ? { config } : {}),
        env: () => Object.fromEntries((options.deployment(id)?.secrets ?? []).map((s) => [s.name, s.value])),
        isApiKeyValid: options.isApiKeyValid,
        baseUrl: () => `${options.baseUrl()}/deployments/${id}`,
        ...(options.log ? { log: options.log } : {}),
        onRequest: (record) =>
          options.onRequest?.({
            ...record,
            route: `/deployments/{deployment_id}${record.route}`,
            path: `/deployments/${id}${record.path}`,
          }),
      });
      servers.set(id, server);
      applied.set(id, config);
    }
    follow(deployment, server);
    return server;
  };

  return {
    serve: async (req, res, pathWithQuery) => {
      const [, id = '', rest = ''] = DEPLOYMENT_PREFIX.exec(pathWithQuery) ?? [];
      const deployment = options.deployment(decodeURIComponent(id));
      if (!deployment?.active_revision_id) {
        servers.get(id)?.close();
        servers.delete(id);
        applied.delete(id);
        const reply = errorReply(
          deployment
            ? new HttpError(503, `Deployment ${id} has no deployed revision yet`)
            : new HttpError(404, `Deployment ${id} not found`),
        );
        send(res, reply.status, JSON.stringify(reply.body));
        return;
      }
      await serverFor(deployment).handle(req, res, rest === '' || rest.startsWith('?') ? `/${rest}` : rest);
    },
    configureAgentServer: (idOrName, config) => {
      const parsed = AgentServerConfigSchema.parse(config);
      configs.set(idOrName, parsed);
      const deployment = find(idOrName);
      const server = deployment && servers.get(deployment.id);
      if (deployment && server) follow(deployment, server);
    },
    configureRevisionAgent: (source, config) => {
      bySource.set(source, AgentServerConfigSchema.parse(config));
      for (const deployment of options.deployments()) {
        const server = servers.get(deployment.id);
        if (server) follow(deployment, server);
      }
    },
    agentServerConfig: (idOrName) => {
      const deployment = find(idOrName);
      if (deployment) return servers.get(deployment.id)?.config() ?? configFor(deployment) ?? {};
      return configs.get(idOrName);
    },
    webhookDeliveries: (idOrName) => {
      const deployment = find(idOrName);
      return (deployment && servers.get(deployment.id)?.deliveries()) || ([] as WebhookDelivery[]);
    },
    agentServer: (idOrName) => {
      const deployment = find(idOrName);
      return deployment ? serverFor(deployment) : undefined;
    },
    close: () => {
      for (const server of servers.values()) server.close();
      servers.clear();
    },
  };
}
