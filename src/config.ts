/**
 * Controller configuration from flags and environment variables (a flag wins over its variable), parsed
 * with zod so a bad value stops start-up with a message naming the flag and the rule. Every option is
 * listed in OPTIONS, which also generates docs/configuration.md (`node src/main.ts --help`).
 */

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  AnalysisUrlListError,
  type AnalysisUrlPolicy,
  analysisUrlPolicy,
} from './analysis/providers/allowed-urls.ts';
import {
  type ControlPlaneAllowList,
  ControlPlaneAllowListError,
  controlPlaneAllowList,
} from './controlplane/allowed-control-planes.ts';
import { baseUrlProblem } from './controlplane/credentials.ts';
import { parseDuration } from './lib/duration.ts';
import { LabelSelectorError, parseLabelSelector } from './lib/label-selector.ts';
import { OPTIONS } from './options.ts';
import { parseQuantity } from './translate/quantity.ts';
import {
  defaultHostAllowList,
  type HostAllowList,
  HostAllowListError,
  parseHostAllowList,
} from './verification/host-allow-list.ts';
import {
  InternalAddressListError,
  type InternalAddressPolicy,
  internalAddressPolicy,
} from './verification/internal-addresses.ts';

const duration = (flag: string) =>
  z.string().transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `--${flag}: "${v}" is not a duration above zero such as 30s, 5m or 1h`,
      });
      return z.NEVER;
    }
    return ms;
  });

const positiveInt = (flag: string) =>
  z.coerce
    .number({ error: `--${flag} must be a number` })
    .int(`--${flag} must be a whole number`)
    .positive(`--${flag} must be above 0`);

const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** A byte quantity of at least 1Mi (`8Mi`), as bytes. */
const byteBudget = (flag: string, example: string) =>
  z.string().transform((v, ctx) => {
    const q = parseQuantity(v);
    const bytes = q && q.exponent >= 0 ? Number(q.digits) * 10 ** q.exponent : Number.NaN;
    if (!Number.isSafeInteger(bytes) || bytes < 1024 * 1024) {
      ctx.addIssue({
        code: 'custom',
        message: `--${flag}: "${v}" is not a byte quantity of at least 1Mi, such as ${example}`,
      });
      return z.NEVER;
    }
    return bytes;
  });

const ConfigFields = z.object({
  controlPlaneUrl: z
    .url({ protocol: /^https?$/, error: '--control-plane-url must be an http(s) URL' })
    .check((ctx) => {
      const problem = baseUrlProblem(ctx.value);
      if (problem)
        ctx.issues.push({ code: 'custom', input: ctx.value, message: `--control-plane-url ${problem}` });
    })
    .optional(),
  controlPlaneApiKey: z.string().optional(),
  controlPlaneBearerToken: z.string().optional(),
  controlPlaneTenantId: z.string().optional(),
  defaultCredentialsNamespaces: commaList,
  defaultCredentialsNamespaceSelector: z.string().check((ctx) => {
    try {
      parseLabelSelector(ctx.value);
    } catch (err) {
      if (!(err instanceof LabelSelectorError)) throw err;
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        message: `--default-credentials-namespace-selector: ${err.message}`,
      });
    }
  }),
  allowedControlPlaneUrls: z.string(),
  agentServerAllowedHosts: z.string().optional(),
  agentServerWildcardHostsAcknowledged: z
    .enum(['true', 'false'], { error: '--agent-server-wildcard-hosts-acknowledged must be true or false' })
    .transform((v) => v === 'true'),
  agentServerAllowedInternalAddresses: z.string(),
  analysisAllowedUrls: z.string(),
  watchNamespaces: commaList,
  labelSelector: z.string(),
  pollInterval: duration('poll-interval'),
  revisionPollInterval: duration('revision-poll-interval'),
  templatePollInterval: duration('template-poll-interval').optional(),
  importTemplatesNamespace: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, '--import-templates-namespace must be a namespace name')
    .optional(),
  workers: positiveInt('workers'),
  reserveWorkers: z.coerce
    .number({ error: '--reserve-workers must be a number' })
    .int('--reserve-workers must be a whole number')
    .min(0, '--reserve-workers must be 0 or more'),
  namespaceSecretBudget: byteBudget('namespace-secret-budget', '8Mi'),
  namespaceTemplateBudget: byteBudget('namespace-template-budget', '16Mi'),
  namespaceDeploymentBudget: byteBudget('namespace-deployment-budget', '32Mi'),
  namespaceCredentialIdentities: positiveInt('namespace-credential-identities'),
  reconcileTimeout: duration('reconcile-timeout').refine((ms) => ms >= 5_000, {
    message: '--reconcile-timeout must be at least 5s',
  }),
  reconcileRate: positiveInt('reconcile-rate'),
  controlPlaneRps: positiveInt('control-plane-rps'),
  controlPlaneConcurrency: positiveInt('control-plane-concurrency'),
  controlPlaneTimeout: duration('control-plane-timeout').refine((ms) => ms >= 1000 && ms <= 600_000, {
    message: '--control-plane-timeout must be between 1s and 10m',
  }),
  sharding: z.enum(['off', 'auto'], { error: '--sharding must be off or auto' }),
  leaderElect: z
    .enum(['true', 'false'], { error: '--leader-elect must be true or false' })
    .transform((v) => v === 'true'),
  leaderElectionNamespace: z.string().optional(),
  leaderElectionId: z.string().min(1),
  leaderElectionLeaseDuration: duration('leader-election-lease-duration').refine((ms) => ms >= 2000, {
    message: '--leader-election-lease-duration must be at least 2s',
  }),
  leaderElectionRenewDeadline: duration('leader-election-renew-deadline'),
  leaderElectionRetryPeriod: duration('leader-election-retry-period'),
  podName: z.string().optional(),
  podNamespace: z.string().optional(),
  operatorDeployment: z.string().optional(),
  httpPort: z.coerce
    .number()
    .int()
    .min(0, '--http-port must be 0..65535')
    .max(65535, '--http-port must be 0..65535'),
  webhookPort: z.coerce
    .number()
    .int()
    .min(0, '--webhook-port must be 0..65535')
    .max(65535, '--webhook-port must be 0..65535')
    .optional(),
  webhookBaseUrl: z
    .url({ protocol: /^https?$/, error: '--webhook-base-url must be an http(s) URL' })
    .optional(),
  verificationBackoff: duration('verification-backoff'),
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error'], {
    error: '--log-level must be trace, debug, info, warn or error',
  }),
  secretsDigestKey: z.string().optional(),
});
const ConfigSchema = ConfigFields.refine(
  (c) => c.webhookBaseUrl === undefined || c.webhookPort !== undefined,
  { message: '--webhook-base-url needs --webhook-port: the receiver it names must run' },
)
  .refine((c) => c.leaderElectionRenewDeadline < c.leaderElectionLeaseDuration, {
    message: '--leader-election-renew-deadline must be below --leader-election-lease-duration',
  })
  .refine((c) => c.leaderElectionRetryPeriod < c.leaderElectionRenewDeadline, {
    message: '--leader-election-retry-period must be below --leader-election-renew-deadline',
  })
  .transform((c, ctx) => {
    // Unset: derived from the control plane's URL (its host and domain); set: exactly the hosts given.
    let agentServerHosts: HostAllowList;
    try {
      agentServerHosts =
        c.agentServerAllowedHosts === undefined
          ? defaultHostAllowList(c.controlPlaneUrl)
          : parseHostAllowList(c.agentServerAllowedHosts);
    } catch (err) {
      if (!(err instanceof HostAllowListError)) throw err;
      ctx.addIssue({ code: 'custom', message: `--agent-server-allowed-hosts: ${err.message}` });
      return z.NEVER;
    }
    // A wildcard over a domain others publish under would take the controller's key to their servers.
    if (agentServerHosts.wildcards.length > 0 && !c.agentServerWildcardHostsAcknowledged) {
      ctx.addIssue({
        code: 'custom',
        message: `--agent-server-allowed-hosts: ${agentServerHosts.wildcards.join(', ')} ${agentServerHosts.wildcards.length === 1 ? 'is a wildcard' : 'are wildcards'}, which take effect only with --agent-server-wildcard-hosts-acknowledged=true (AGENT_SERVER_WILDCARD_HOSTS_ACKNOWLEDGED, chart agentServer.wildcardHostsAcknowledged): set it only when every host under the domain is run for your tenant alone, never for a domain other customers of the platform share; or list the hosts themselves`,
      });
      return z.NEVER;
    }
    let allowedControlPlanes: ControlPlaneAllowList;
    try {
      allowedControlPlanes = controlPlaneAllowList(c.allowedControlPlaneUrls, c.controlPlaneUrl);
    } catch (err) {
      if (!(err instanceof ControlPlaneAllowListError)) throw err;
      ctx.addIssue({ code: 'custom', message: `--allowed-control-plane-urls: ${err.message}` });
      return z.NEVER;
    }
    let agentServerInternalAddresses: InternalAddressPolicy;
    try {
      agentServerInternalAddresses = internalAddressPolicy(c.agentServerAllowedInternalAddresses);
    } catch (err) {
      if (!(err instanceof InternalAddressListError)) throw err;
      ctx.addIssue({
        code: 'custom',
        message: `--agent-server-allowed-internal-addresses: ${err.message}`,
      });
      return z.NEVER;
    }
    let analysisUrls: AnalysisUrlPolicy;
    try {
      analysisUrls = analysisUrlPolicy(c.analysisAllowedUrls);
    } catch (err) {
      if (!(err instanceof AnalysisUrlListError)) throw err;
      ctx.addIssue({ code: 'custom', message: `--analysis-allowed-urls: ${err.message}` });
      return z.NEVER;
    }
    return { ...c, agentServerHosts, allowedControlPlanes, agentServerInternalAddresses, analysisUrls };
  });
export type Config = z.infer<typeof ConfigSchema>;

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export class ConfigError extends Error {}

/** Parses argv (`--flag=value`, `--flag value`, `--secret-file path`) over env over defaults. */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Config {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument "${arg}"; see --help`);
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new ConfigError(`--${name} needs a value`);
    flags.set(name, value);
  }
  const known = new Set<string>(
    OPTIONS.flatMap((o) => ('secret' in o && o.secret ? [`${o.flag}-file`] : [o.flag])),
  );
  for (const name of flags.keys()) {
    if (!known.has(name)) throw new ConfigError(`unknown flag --${name}; see --help`);
  }
  const given = new Map<string, string>();
  for (const o of OPTIONS) {
    const fromFile = flags.get(`${o.flag}-file`);
    const value =
      fromFile !== undefined ? readSecretFile(o.flag, fromFile) : (flags.get(o.flag) ?? env[o.env]);
    if (value !== undefined && value !== '') given.set(o.flag, value);
  }
  // An option not given takes its default; under --sharding=auto, some have one of their own (the
  // member Lease timings): a value given explicitly always wins.
  const sharded = given.get('sharding') === 'auto';
  const raw: Record<string, string | undefined> = {};
  for (const o of OPTIONS) {
    const fallback =
      sharded && 'shardedDefault' in o ? o.shardedDefault : 'default' in o ? o.default : undefined;
    raw[camel(o.flag)] = given.get(o.flag) ?? fallback;
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => i.message).join('\n'));
  }
  return parsed.data;
}

function readSecretFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    throw new ConfigError(`--${flag}-file: cannot read ${path}`);
  }
}
