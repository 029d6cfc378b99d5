/**
 * Controller configuration from flags and environment variables (a flag wins over its variable), parsed
 * with zod so a bad value stops start-up with a message naming the flag and the rule. Every option is
 * listed in OPTIONS, which also generates docs/configuration.md (`node src/main.ts --help`).
 */

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  type ControlPlaneAllowList,
  ControlPlaneAllowListError,
  controlPlaneAllowList,
} from './controlplane/allowed-control-planes.ts';
import { parseDuration } from './lib/duration.ts';
import { LabelSelectorError, parseLabelSelector } from './lib/label-selector.ts';
import { parseQuantity } from './translate/quantity.ts';
import {
  defaultHostAllowList,
  type HostAllowList,
  HostAllowListError,
  parseHostAllowList,
} from './verification/host-allow-list.ts';

interface OptionSpec {
  flag: string;
  env: string;
  help: string;
  default?: string;
  /** Secret values: never printed, and read from a file with `--<flag>-file` rather than a flag. */
  secret?: boolean;
}

export const OPTIONS = [
  {
    flag: 'control-plane-url',
    env: 'CONTROL_PLANE_URL',
    help: 'Base URL of the control plane (default credentials).',
  },
  {
    flag: 'control-plane-api-key',
    env: 'CONTROL_PLANE_API_KEY',
    help: 'API key sent as X-Api-Key.',
    secret: true,
  },
  {
    flag: 'control-plane-bearer-token',
    env: 'CONTROL_PLANE_BEARER_TOKEN',
    help: 'Bearer token, instead of an API key (needs the tenant id).',
    secret: true,
  },
  {
    flag: 'control-plane-tenant-id',
    env: 'CONTROL_PLANE_TENANT_ID',
    help: 'Tenant (workspace) id sent as X-Tenant-Id.',
  },
  {
    flag: 'default-credentials-namespaces',
    env: 'DEFAULT_CREDENTIALS_NAMESPACES',
    help: 'Comma-separated namespaces whose objects may use the default credentials; with the selector empty too, every namespace may.',
    default: '',
  },
  {
    flag: 'default-credentials-namespace-selector',
    env: 'DEFAULT_CREDENTIALS_NAMESPACE_SELECTOR',
    help: 'Label selector of namespaces whose objects may use the default credentials (besides the listed ones; needs namespace read access).',
    default: '',
  },
  {
    flag: 'allowed-control-plane-urls',
    env: 'ALLOWED_CONTROL_PLANE_URLS',
    help: "Comma-separated control-plane base URLs a namespace's credentials Secret may name (scheme, host and port must match; a path allows what is below it); the default credentials' URL is always allowed, and with no list it is the only one.",
    default: '',
  },
  {
    flag: 'agent-server-allowed-hosts',
    env: 'AGENT_SERVER_ALLOWED_HOSTS',
    help: 'Comma-separated agent-server hosts that may receive the default credentials (host, host:port, *.domain); default: the control plane host and its domain.',
  },
  {
    flag: 'watch-namespaces',
    env: 'WATCH_NAMESPACES',
    help: 'Comma-separated namespaces to watch; empty watches all.',
    default: '',
  },
  {
    flag: 'label-selector',
    env: 'LABEL_SELECTOR',
    help: 'Only objects matching this label selector (sharding).',
    default: '',
  },
  {
    flag: 'poll-interval',
    env: 'POLL_INTERVAL',
    help: 'How often every object is checked for drift.',
    default: '60s',
  },
  {
    flag: 'revision-poll-interval',
    env: 'REVISION_POLL_INTERVAL',
    help: 'How often a revision in progress is polled.',
    default: '5s',
  },
  {
    flag: 'template-poll-interval',
    env: 'TEMPLATE_POLL_INTERVAL',
    help: 'How often sandbox templates are listed (default: the poll interval).',
  },
  {
    flag: 'import-templates-namespace',
    env: 'IMPORT_TEMPLATES_NAMESPACE',
    help: 'Create an observe-only SandboxTemplate in this namespace for every listed template.',
  },
  { flag: 'workers', env: 'WORKERS', help: 'Reconciles run at once.', default: '4' },
  {
    flag: 'reserve-workers',
    env: 'RESERVE_WORKERS',
    help: 'AgentDeployment workers beyond --workers that start only a tenant with nothing in flight (bulkheads: a tenant whose server hangs cannot keep another from starting).',
    default: '4',
  },
  {
    flag: 'namespace-secret-budget',
    env: 'NAMESPACE_SECRET_BUDGET',
    help: 'Bytes of referenced Secret values the controller holds for one namespace (a quantity such as 8Mi); a Secret past it is not read and its readers stall with BudgetExceeded.',
    default: '8Mi',
  },
  {
    flag: 'reconcile-timeout',
    env: 'RECONCILE_TIMEOUT',
    help: "Deadline of one reconcile pass's calls to the control plane and agent servers, all together.",
    default: '2m',
  },
  {
    flag: 'reconcile-rate',
    env: 'RECONCILE_RATE',
    help: 'Reconciles started per second, all objects together.',
    default: '50',
  },
  {
    flag: 'control-plane-rps',
    env: 'CONTROL_PLANE_RPS',
    help: 'Control-plane requests per second, per credential (429 Retry-After slows it further).',
    default: '50',
  },
  {
    flag: 'control-plane-concurrency',
    env: 'CONTROL_PLANE_CONCURRENCY',
    help: 'Control-plane requests in flight, per credential.',
    default: '16',
  },
  {
    flag: 'control-plane-timeout',
    env: 'CONTROL_PLANE_TIMEOUT',
    help: 'Deadline of one control-plane request, response body included (a server that trickles bytes cannot hold it longer).',
    default: '30s',
  },
  {
    flag: 'leader-elect',
    env: 'LEADER_ELECT',
    help: 'Elect a leader on a Lease so one replica writes.',
    default: 'true',
  },
  {
    flag: 'leader-election-namespace',
    env: 'LEADER_ELECTION_NAMESPACE',
    help: 'Namespace of the Lease (default: the pod namespace, else default).',
  },
  {
    flag: 'leader-election-id',
    env: 'LEADER_ELECTION_ID',
    help: 'Name of the Lease; one per shard.',
    default: 'agent-deployment-operator',
  },
  {
    flag: 'leader-election-lease-duration',
    env: 'LEADER_ELECTION_LEASE_DURATION',
    help: 'How long a Lease nobody renews stays taken (whole seconds).',
    default: '15s',
  },
  {
    flag: 'leader-election-renew-deadline',
    env: 'LEADER_ELECTION_RENEW_DEADLINE',
    help: 'A leader that could not renew for this long stops leading; below the lease duration. Each Lease call has half of it.',
    default: '10s',
  },
  {
    flag: 'leader-election-retry-period',
    env: 'LEADER_ELECTION_RETRY_PERIOD',
    help: 'Time between attempts to acquire or renew the Lease; below the renew deadline.',
    default: '2s',
  },
  { flag: 'pod-name', env: 'POD_NAME', help: 'Identity in leader election (default: hostname and pid).' },
  { flag: 'pod-namespace', env: 'POD_NAMESPACE', help: 'Namespace the controller runs in.' },
  { flag: 'http-port', env: 'HTTP_PORT', help: 'Port of /healthz, /readyz and /metrics.', default: '8080' },
  {
    flag: 'webhook-port',
    env: 'WEBHOOK_PORT',
    help: 'Port of the run-completion webhook receiver (spec.verification); unset: no receiver.',
  },
  {
    flag: 'webhook-base-url',
    env: 'WEBHOOK_BASE_URL',
    help: 'URL agent servers reach the webhook receiver at, e.g. http://agent-deployment-operator-webhook.ns.svc:9443; unset: runs are joined, no webhook.',
  },
  {
    flag: 'verification-backoff',
    env: 'VERIFICATION_BACKOFF',
    help: 'First retry delay after a failed verification; doubles per failure, up to the interval (at most 5m).',
    default: '5s',
  },
  { flag: 'log-level', env: 'LOG_LEVEL', help: 'trace, debug, info, warn or error.', default: 'info' },
  {
    flag: 'secrets-digest-key',
    env: 'SECRETS_DIGEST_KEY',
    help: 'Key of the secrets digest kept in status (default: derived from the key Secret the operator keeps in its namespace).',
    secret: true,
  },
] as const satisfies readonly OptionSpec[];

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

const ConfigFields = z.object({
  controlPlaneUrl: z
    .url({ protocol: /^https?$/, error: '--control-plane-url must be an http(s) URL' })
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
  namespaceSecretBudget: z.string().transform((v, ctx) => {
    const q = parseQuantity(v);
    const bytes = q && q.exponent >= 0 ? Number(q.digits) * 10 ** q.exponent : Number.NaN;
    if (!Number.isSafeInteger(bytes) || bytes < 1024 * 1024) {
      ctx.addIssue({
        code: 'custom',
        message: `--namespace-secret-budget: "${v}" is not a byte quantity of at least 1Mi, such as 8Mi`,
      });
      return z.NEVER;
    }
    return bytes;
  }),
  reconcileTimeout: duration('reconcile-timeout').refine((ms) => ms >= 5_000, {
    message: '--reconcile-timeout must be at least 5s',
  }),
  reconcileRate: positiveInt('reconcile-rate'),
  controlPlaneRps: positiveInt('control-plane-rps'),
  controlPlaneConcurrency: positiveInt('control-plane-concurrency'),
  controlPlaneTimeout: duration('control-plane-timeout').refine((ms) => ms >= 1000 && ms <= 600_000, {
    message: '--control-plane-timeout must be between 1s and 10m',
  }),
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
    let allowedControlPlanes: ControlPlaneAllowList;
    try {
      allowedControlPlanes = controlPlaneAllowList(c.allowedControlPlaneUrls, c.controlPlaneUrl);
    } catch (err) {
      if (!(err instanceof ControlPlaneAllowListError)) throw err;
      ctx.addIssue({ code: 'custom', message: `--allowed-control-plane-urls: ${err.message}` });
      return z.NEVER;
    }
    return { ...c, agentServerHosts, allowedControlPlanes };
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
  const raw: Record<string, string | undefined> = {};
  for (const o of OPTIONS) {
    const fromFile = flags.get(`${o.flag}-file`);
    const value =
      fromFile !== undefined ? readSecretFile(o.flag, fromFile) : (flags.get(o.flag) ?? env[o.env]);
    raw[camel(o.flag)] =
      value === undefined || value === '' ? ('default' in o ? o.default : value || undefined) : value;
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

export function helpText(): string {
  const lines = [
    'Usage: node src/main.ts [--flag=value ...]',
    '',
    'Each flag can also be set by its environment variable.',
    '',
  ];
  for (const o of OPTIONS) {
    const flag = 'secret' in o && o.secret ? `--${o.flag}-file PATH` : `--${o.flag}`;
    const def = 'default' in o && o.default !== '' ? ` (default ${o.default})` : '';
    lines.push(`  ${flag.padEnd(40)} ${o.env.padEnd(28)} ${o.help}${def}`);
  }
  return lines.join('\n');
}
