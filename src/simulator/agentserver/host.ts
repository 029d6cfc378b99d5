/**
 * Mounts one agent server per simulated deployment at `/deployments/{id}`: created on first use, with
 * the deployment's secrets as its environment, and the configuration given for its id or name.
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
  /** Serves a request whose path starts with `/deployments/`. */
  serve(req: IncomingMessage, res: ServerResponse, pathWithQuery: string): Promise<void>;
  agentServer(deployment: string): AgentServer | undefined;
  close(): void;
}

export const DEPLOYMENT_PREFIX = /^\/deployments\/([^/?]+)(.*)$/;

export function createAgentServerHost(options: AgentServerHostOptions): AgentServerHost {
  const configs = new Map<string, AgentServerConfig>();
  const servers = new Map<string, AgentServer>();

  const configFor = (deployment: HostedDeployment) =>
    configs.get(deployment.id) ?? configs.get(deployment.name);
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
    }
    return server;
  };

  return {
    serve: async (req, res, pathWithQuery) => {
      const [, id = '', rest = ''] = DEPLOYMENT_PREFIX.exec(pathWithQuery) ?? [];
      const deployment = options.deployment(decodeURIComponent(id));
      if (!deployment?.active_revision_id) {
        servers.get(id)?.close();
        servers.delete(id);
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
      if (deployment) servers.get(deployment.id)?.configure(parsed);
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
