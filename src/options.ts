/**
 * Every option of the controller: its flag, its environment variable, its help and its default, in one
 * table that config.ts parses, `--help` prints and scripts/generate-docs.ts turns into the options
 * reference. Secret options are read from a file (`--<flag>-file`), never from a flag's value.
 */

interface OptionSpec {
  flag: string;
  env: string;
  help: string;
  default?: string;
  /**
   * The default under --sharding=auto, where it differs: a member's Lease bounds how soon a dead
   * replica's objects move (docs/install.md, "Scaling out", says why these values).
   */
  shardedDefault?: string;
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
    help: 'Comma-separated agent-server hosts that may receive the default credentials (host, host:port, *.domain); default: exactly the control plane host; wildcards only where written.',
  },
  {
    flag: 'agent-server-wildcard-hosts-acknowledged',
    env: 'AGENT_SERVER_WILDCARD_HOSTS_ACKNOWLEDGED',
    help: 'true: the *.domain entries of --agent-server-allowed-hosts take effect, acknowledging that every host under each such domain is run for your tenant alone, never a domain other customers of the platform share; false: the controller refuses to start with a wildcard entry.',
    default: 'false',
  },
  {
    flag: 'agent-server-allowed-internal-addresses',
    env: 'AGENT_SERVER_ALLOWED_INTERNAL_ADDRESSES',
    help: "Comma-separated addresses, CIDR ranges and host names that verification with a namespace's own credentials may call although internal (loopback, link-local, private, unspecified, multicast, the other special-purpose ranges, and IPv6 that carries such an IPv4 address); default: none.",
    default: '',
  },
  {
    flag: 'analysis-allowed-urls',
    env: 'ANALYSIS_ALLOWED_URLS',
    help: "Comma-separated URL prefixes spec.analysis providers may call (web's url, prometheus' address, and an agentServer URL the namespace chose): scheme, host and port must match, a path allows what is below it. An internal address (loopback, link-local, private ...) is reached only where an entry names it, by address or by a cluster name (.svc, .cluster.local, a single label); default: none, so every provider URL is refused.",
    default: '',
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
    help: 'Only objects matching this label selector (a static shard; with --sharding=auto, the objects its replicas share).',
    default: '',
  },
  {
    flag: 'poll-interval',
    env: 'POLL_INTERVAL',
    help: 'How often every object is checked for drift (a listing per 100 deployments). A Ready object is also reconciled every 10 intervals as a safety resync, less often when the resyncs of all the objects a replica holds would take more than 2% of --reconcile-rate.',
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
    help: 'Workers of each kind (AgentDeployment, SandboxTemplate) beyond --workers that start only a tenant with nothing in flight (bulkheads: a tenant whose server hangs cannot keep another from starting).',
    default: '4',
  },
  {
    flag: 'namespace-secret-budget',
    env: 'NAMESPACE_SECRET_BUDGET',
    help: 'Bytes of referenced Secret values the controller holds for one namespace (a quantity such as 8Mi); a Secret past it is not read and its readers stall with BudgetExceeded.',
    default: '8Mi',
  },
  {
    flag: 'namespace-credential-identities',
    env: 'NAMESPACE_CREDENTIAL_IDENTITIES',
    help: "Credential identities (base URL and key pairs) one namespace's credentials Secrets may bring in; an object naming one more waits with BudgetExceeded until one goes unused for 30 minutes (one the batched poll still lists a deployment of the namespace with stays in use).",
    default: '8',
  },
  {
    flag: 'namespace-template-budget',
    env: 'NAMESPACE_TEMPLATE_BUDGET',
    help: "Bytes of sandbox template listings the controller holds for one namespace's credentials Secrets (a quantity such as 16Mi); a listing past it is not held and its readers wait with BudgetExceeded.",
    default: '16Mi',
  },
  {
    flag: 'namespace-deployment-budget',
    env: 'NAMESPACE_DEPLOYMENT_BUDGET',
    help: "Bytes of deployment snapshots the batched poll holds for one namespace's AgentDeployments, whatever their credentials (a quantity such as 32Mi); a deployment past it is not held and its object waits with BudgetExceeded.",
    default: '32Mi',
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
    flag: 'sharding',
    env: 'SHARDING',
    help: 'off: one replica works (leader election), others wait; auto: the replicas share the objects, each taking the ones rendezvous hashing gives it over the live members (a member Lease per replica, named after --leader-election-id; --leader-elect is then not used).',
    default: 'off',
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
    help: 'Name of the Lease; one per static shard. With --sharding=auto: the prefix and label value of the member Leases.',
    default: 'agent-deployment-operator',
  },
  {
    flag: 'leader-election-lease-duration',
    env: 'LEADER_ELECTION_LEASE_DURATION',
    help: "How long a Lease nobody renews stays taken (whole seconds); a dead replica's work moves this long after its last renewal.",
    default: '15s',
    shardedDefault: '6s',
  },
  {
    flag: 'leader-election-renew-deadline',
    env: 'LEADER_ELECTION_RENEW_DEADLINE',
    help: "A leader (or a member, with --sharding=auto) that could not renew for this long stops; below the lease duration. Each Lease call has half of it (a member's: a third).",
    default: '10s',
    shardedDefault: '4s',
  },
  {
    flag: 'leader-election-retry-period',
    env: 'LEADER_ELECTION_RETRY_PERIOD',
    help: 'Time between attempts to acquire or renew the Lease; below the renew deadline.',
    default: '2s',
    shardedDefault: '1s',
  },
  {
    flag: 'pod-name',
    env: 'POD_NAME',
    help: "Start of the replica's identity (a random suffix follows) in leader election, shard membership and the User-Agent of control-plane calls (default: the hostname).",
  },
  { flag: 'pod-namespace', env: 'POD_NAMESPACE', help: 'Namespace the controller runs in.' },
  {
    flag: 'operator-deployment',
    env: 'OPERATOR_DEPLOYMENT',
    help: "Name of the controller's own Deployment, in its namespace (the chart and manifests/ set it): the settings ConfigMap it publishes names it as owner, which is how kubectl agd plan knows the ConfigMap is the controller's. Unset: published without an owner, and plans say the settings are unknown.",
  },
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

/** `, <value> with --sharding=auto` for an option whose default differs there; '' otherwise. */
function shardedNote(o: OptionSpec): string {
  return o.shardedDefault === undefined ? '' : `; ${o.shardedDefault} with --sharding=auto`;
}

/** The `--help` text: one line per option, from OPTIONS. */
export function helpText(): string {
  const lines = [
    'Usage: node src/main.ts [--flag=value ...]',
    '',
    'Each flag can also be set by its environment variable.',
    '',
  ];
  for (const o of OPTIONS) {
    const flag = 'secret' in o && o.secret ? `--${o.flag}-file PATH` : `--${o.flag}`;
    const def = 'default' in o && o.default !== '' ? ` (default ${o.default}${shardedNote(o)})` : '';
    lines.push(`  ${flag.padEnd(40)} ${o.env.padEnd(28)} ${o.help}${def}`);
  }
  return lines.join('\n');
}
