/**
 * `/_simulator/agent-servers/{deployment}`: configure a deployment's agent server out of process, read
 * its configuration, webhook deliveries and count of runs, and start that count over.
 */
import { z } from 'zod';
import { HttpError, type Route } from '../http.ts';
import { parseOrFail } from '../validation.ts';
import { type AgentServerConfig, AgentServerConfigSchema } from './config.ts';
import type { AgentServer } from './index.ts';
import type { WebhookDelivery } from './webhooks.ts';

/** What the admin routes need of the simulator. `deployment` is a deployment id or name. */
export interface AgentServerAdmin {
  configureRevisionAgent(source: string, config: AgentServerConfig): void;
  configureAgentServer(deployment: string, config: AgentServerConfig): void;
  agentServerConfig(deployment: string): AgentServerConfig | undefined;
  webhookDeliveries(deployment: string): WebhookDelivery[];
  agentServer(deployment: string): AgentServer | undefined;
}

/** The agent of every revision made from `source`: an image_uri, a repo_ref or a repo_commit_sha. */
const RevisionAgentBody = z.object({ source: z.string().min(1), config: AgentServerConfigSchema }).strict();

export function agentServerAdminRoutes(admin: AgentServerAdmin): Route[] {
  return [
    {
      method: 'PUT',
      template: '/_simulator/revision-agents',
      handler: (ctx) => {
        const { source, config } = parseOrFail(RevisionAgentBody, ctx.body ?? {}, ['body']);
        admin.configureRevisionAgent(source, config);
        return { status: 204 };
      },
    },
    {
      method: 'PUT',
      template: '/_simulator/agent-servers/{deployment}',
      handler: (ctx) => {
        admin.configureAgentServer(
          ctx.params.deployment ?? '',
          parseOrFail(AgentServerConfigSchema, ctx.body ?? {}, ['body']),
        );
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      template: '/_simulator/agent-servers/{deployment}',
      handler: (ctx) => {
        const deployment = ctx.params.deployment ?? '';
        const config = admin.agentServerConfig(deployment);
        if (!config) throw new HttpError(404, `No agent server configuration for ${deployment}`);
        return {
          status: 200,
          body: {
            config,
            webhook_deliveries: admin.webhookDeliveries(deployment),
            runs_started: admin.agentServer(deployment)?.runsStarted() ?? 0,
          },
        };
      },
    },
    {
      method: 'POST',
      template: '/_simulator/agent-servers/{deployment}/reset',
      handler: (ctx) => {
        const deployment = ctx.params.deployment ?? '';
        const server = admin.agentServer(deployment);
        if (!server) throw new HttpError(404, `Deployment ${deployment} not found`);
        server.resetRunCount();
        return { status: 204 };
      },
    },
  ];
}
