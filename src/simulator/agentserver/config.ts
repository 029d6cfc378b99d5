/**
 * A deployment's agent-server configuration: the graph configuration file's `webhooks` and `http` keys
 * (named as the document names them) plus the simulated graph's behaviour.
 */
import { z } from 'zod';

export const DEFAULT_ENV_PREFIX = 'LG_WEBHOOK_';
/** The production server's default when `webhooks` is configured without `url.max_url_length`. */
export const DEFAULT_MAX_URL_LENGTH = 4096;
export const DEFAULT_GRAPH_ID = 'agent';
export const DEFAULT_ERROR_MARKER = '__fail__';

export const WebhookUrlPolicySchema = z
  .object({
    allowed_domains: z.array(z.string().min(1)).optional(),
    require_https: z.boolean().optional(),
    allowed_ports: z.array(z.number().int().min(1).max(65535)).optional(),
    disable_loopback: z.boolean().optional(),
    max_url_length: z.number().int().positive().optional(),
  })
  .strict();
export type WebhookUrlPolicy = z.infer<typeof WebhookUrlPolicySchema>;

export const WebhooksConfigSchema = z
  .object({
    headers: z.record(z.string(), z.string()).optional(),
    env_prefix: z.string().optional(),
    url: WebhookUrlPolicySchema.optional(),
  })
  .strict();
export type WebhooksConfig = z.infer<typeof WebhooksConfigSchema>;

export const GraphBehaviourSchema = z
  .object({
    /** How long each of the graph's two nodes takes. A run may override it: config.configurable.delay_ms. */
    delayMs: z.number().int().min(0).optional(),
    /** Every run raises in its first node. */
    fail: z.boolean().optional(),
    /** A run whose last human message contains this text raises. Default `__fail__`. */
    errorMarker: z.string().min(1).optional(),
    errorMessage: z.string().min(1).optional(),
    /**
     * The server degrades: after this many runs, every run raises as `fail` makes it (the run ends
     * `error`, its thread `error`, join answers `__error__`). Counted from when the configuration is
     * applied (a new revision's configuration starts over) or the count is reset.
     */
    degradeAfterRuns: z.number().int().min(0).optional(),
    /** Each run waits this long before its first node, so it answers that much later. */
    slowMs: z.number().int().min(0).optional(),
  })
  .strict();
export type GraphBehaviour = z.infer<typeof GraphBehaviourSchema>;

export const AgentServerConfigSchema = z
  .object({
    /** Graph ids the deployment serves; each gets a default assistant. Default `["agent"]`. */
    graphs: z.array(z.string().min(1)).min(1).optional(),
    graph: GraphBehaviourSchema.optional(),
    /** A run still executing after this long ends with status `timeout`. */
    runTimeoutMs: z.number().int().positive().optional(),
    webhooks: WebhooksConfigSchema.optional(),
    http: z.object({ disable_webhooks: z.boolean().optional() }).strict().optional(),
  })
  .strict();
export type AgentServerConfig = z.infer<typeof AgentServerConfigSchema>;

/** Why the server did not start; names only, never a value. */
export class StartupError extends Error {}

const TEMPLATE = /\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * Resolves `webhooks.headers` against the environment, as the server does at startup. A template that
 * names a variable outside the prefix, or one that is not set, throws a StartupError.
 */
export function resolveWebhookHeaders(
  webhooks: WebhooksConfig | undefined,
  env: Readonly<Record<string, string>>,
): Record<string, string> {
  const prefix = webhooks?.env_prefix ?? DEFAULT_ENV_PREFIX;
  const resolved: Record<string, string> = {};
  for (const [header, template] of Object.entries(webhooks?.headers ?? {})) {
    resolved[header] = template.replace(TEMPLATE, (_match, name: string) => {
      if (!name.startsWith(prefix)) {
        throw new StartupError(
          `webhooks.headers.${header} references env.${name}, which does not start with the prefix ${prefix}`,
        );
      }
      const value = env[name];
      if (value === undefined) {
        throw new StartupError(
          `webhooks.headers.${header} references env.${name}, which is not set in the environment`,
        );
      }
      return value;
    });
  }
  return resolved;
}
