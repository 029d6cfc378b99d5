#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
/**
 * kubectl-agd: `kubectl agd import` writes the YAML of existing deployments (src/import/);
 * `kubectl agd plan -f <files|dir|->` says what the controller would do to the platform for
 * each AgentDeployment and SandboxTemplate given, before they are applied (docs/plan-and-import.md),
 * and with --prune what deleting the ones removed from the input does. It only reads: Kubernetes
 * (optional) and the control plane. Exit code: 0 every object known to need nothing, 2 changes, 1 a
 * problem (an object refused or that would stall, a failed read, bad usage), 3
 * incomplete (an object could not be judged, or waits on something first).
 */
import { type CommandSpec, complete } from './cli/complete.ts';
import { namesToComplete, runVerb, VERBS } from './cli/verbs.ts';
import { clusterVersions, formatVersions, planVersionNote } from './cli/version.ts';
import { type ControlPlaneAllowList, controlPlaneAllowList } from './controlplane/allowed-control-planes.ts';
import { ControlPlaneClient } from './controlplane/client.ts';
import { type Credentials, credentialsKey } from './controlplane/credentials.ts';
import { credentialsPolicy, resolveCredentials } from './controlplane/resolve-credentials.ts';
import { clusterCheck } from './import/cluster.ts';
import { IMPORT_USAGE, ImportUsageError, parseImportArgs, runImport } from './import/command.ts';
import type { KubeAccess } from './kube/access.ts';
import { exitCodeOf, formatPlan, OUTPUT_FORMATS, type OutputFormat } from './plan/format.ts';
import { readInputs } from './plan/inputs.ts';
import { kubePlanReads } from './plan/kube.ts';
import type { PlanWorld } from './plan/model.ts';
import { planObjects } from './plan/plan.ts';
import { readOnly } from './plan/read-only.ts';
import { OperatorKeySecret, secretsDigestKeyFrom } from './runtime/operator-key.ts';
import { loadKubeAccess } from './startup.ts';

export const USAGE = `Usage: kubectl agd plan -f <file|directory|-> [-f ...] [options]
       kubectl agd import --help
       kubectl agd version [--no-cluster] [--operator-namespace NS]
       kubectl agd history|suspend|resume|reconcile|undo|status|promote|abort NAME ... (each with --help)

Says what the controller would do on the control plane for each AgentDeployment and SandboxTemplate
given: create (the request, secret values shown as "(set)"), patch (field by field, and whether a new
revision is built), nothing, or why it would be refused or stall. It writes nothing anywhere.

Options:
  -f, --filename PATH          a file, a directory of .yaml/.yml/.json files, or - for standard input
  -n, --namespace NS           namespace of objects that name none (default: the kubeconfig's, or default)
  -o, --output FORMAT          text (coloured on a terminal), markdown or json (default: text)
      --no-cluster             plan from the files alone (no kubeconfig): objects are validated offline
                               against the CRDs; Secrets and status are unknown
      --prune                  also plan the AgentDeployments in the cluster that match --selector, in
                               the namespaces planned, but are not in the input (removed from git): what
                               deleting each does, "- delete" (its deployment, by id) or "- orphan"
  -l, --selector SELECTOR      the label selector --prune takes (required with it), as kubectl's
      --control-plane-url URL  the controller's control-plane URL (or CONTROL_PLANE_URL)
      --api-key-file PATH      a file holding the controller's API key (or CONTROL_PLANE_API_KEY;
                               CONTROL_PLANE_BEARER_TOKEN and CONTROL_PLANE_TENANT_ID are read too)
      --allowed-control-plane-urls URLS
                               with --no-cluster: control planes a credentials Secret may name, as the
                               controller's setting (or ALLOWED_CONTROL_PLANE_URLS; default: the
                               controller's URL only). With a cluster the controller's own settings are
                               read (see --operator-namespace)
      --operator-namespace NS  the controller's namespace (default agent-deployment-operator): its
                               settings are read there (the ConfigMap it publishes: which namespaces may
                               use its credentials, the allowed control planes, budgets; without it an
                               object is "unknown"), and its key Secret, to compare secret values
                               exactly as the controller does (or set SECRETS_DIGEST_KEY)
      --show-values            print every platform value a patch changes; by default a value shows
                               only for an object of a --show-values-in namespace, and with the
                               controller's credentials only for the deployment the object records
                               when this user may get Secrets in its namespace
      --allow-empty            an input that holds no AgentDeployment or SandboxTemplate plans nothing
                               and exits 0 (without it: exit 1, so a CI job cannot pass on no input)
      --show-values-in NS      the namespaces (comma-separated) whose platform values the readers of
                               this output may see (default: the plan's namespace, see -n; "" for
                               none): an object naming another namespace shows its values as (hidden)
  -h, --help                   this text

Exit code: 0 every object known to need nothing; 2 changes (a deployment deleted included); 1 a problem (refused, would stall, a
read failed, bad usage); 3 incomplete: some object could not be judged (no credentials, a Secret only
the cluster has) or waits on something first, so what the controller will send is not known yet.
`;

class UsageError extends Error {}

interface Options {
  files: string[];
  namespace: string | undefined;
  output: OutputFormat;
  cluster: boolean;
  credentials: Partial<Credentials>;
  allowedControlPlanes: ControlPlaneAllowList;
  operatorNamespace: string | undefined;
  digestKey: string | undefined;
  /** --prune's label selector; undefined without --prune. */
  prune: { selector: string } | undefined;
  showValues: boolean;
  /** --show-values-in; undefined: the plan's namespace. */
  valuesNamespaces: string[] | undefined;
  allowEmpty: boolean;
}

/** The controller's credentials as both commands take them: flags first, then the environment. */
function credentialsFrom(
  url: string | undefined,
  keyFile: string | undefined,
  env: NodeJS.ProcessEnv,
): Partial<Credentials> {
  const apiKey = keyFile ? readFileSync(keyFile, 'utf8').trim() : env.CONTROL_PLANE_API_KEY;
  const baseUrl = url ?? env.CONTROL_PLANE_URL;
  return {
    ...(baseUrl ? { baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(env.CONTROL_PLANE_BEARER_TOKEN ? { bearerToken: env.CONTROL_PLANE_BEARER_TOKEN } : {}),
    ...(env.CONTROL_PLANE_TENANT_ID ? { tenantId: env.CONTROL_PLANE_TENANT_ID } : {}),
  };
}

export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): Options | 'help' {
  const parse = () =>
    parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        filename: { type: 'string', short: 'f', multiple: true },
        namespace: { type: 'string', short: 'n' },
        output: { type: 'string', short: 'o', default: 'text' },
        'no-cluster': { type: 'boolean', default: false },
        'control-plane-url': { type: 'string' },
        'api-key-file': { type: 'string' },
        'allowed-control-plane-urls': { type: 'string' },
        'operator-namespace': { type: 'string' },
        prune: { type: 'boolean', default: false },
        selector: { type: 'string', short: 'l' },
        'show-values': { type: 'boolean', default: false },
        'show-values-in': { type: 'string' },
        'allow-empty': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals[0] !== 'plan' || positionals.length > 1) {
    throw new UsageError(
      `unknown command ${JSON.stringify(positionals.join(' '))}: the commands are ${COMMANDS.map((c) => `"${c.name}"`).join(', ')}`,
    );
  }
  const output = values.output as OutputFormat;
  if (!OUTPUT_FORMATS.includes(output)) {
    throw new UsageError(
      `--output ${JSON.stringify(values.output)}: must be one of ${OUTPUT_FORMATS.join(', ')}`,
    );
  }
  const selector = values.selector?.trim();
  if (values.prune && !selector)
    throw new UsageError('--prune needs -l/--selector: the label selector of the objects the input holds');
  if (selector !== undefined && !values.prune)
    throw new UsageError('-l/--selector is only used with --prune');
  if (values.prune && values['no-cluster'])
    throw new UsageError(
      '--prune reads the cluster for objects not in the input: it cannot be used with --no-cluster',
    );
  const credentials = credentialsFrom(values['control-plane-url'], values['api-key-file'], env);
  const { baseUrl } = credentials;
  let allowedControlPlanes: ControlPlaneAllowList;
  try {
    allowedControlPlanes = controlPlaneAllowList(
      values['allowed-control-plane-urls'] ?? env.ALLOWED_CONTROL_PLANE_URLS ?? '',
      baseUrl,
    );
  } catch (err) {
    throw new UsageError(`--allowed-control-plane-urls: ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    files: values.filename ?? [],
    namespace: values.namespace,
    output,
    cluster: !values['no-cluster'],
    credentials,
    allowedControlPlanes,
    operatorNamespace: values['operator-namespace'],
    digestKey: env.SECRETS_DIGEST_KEY || undefined,
    prune: values.prune && selector ? { selector } : undefined,
    showValues: values['show-values'],
    valuesNamespaces: values['show-values-in']
      ?.split(',')
      .map((n) => n.trim())
      .filter(Boolean),
    allowEmpty: values['allow-empty'],
  };
}

export interface CliIo {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  stdin: () => string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTty: boolean;
  /** The cluster to read; default: as kubectl finds it. */
  kubeAccess?: () => KubeAccess;
}

/** The kubeconfig's cluster; without one, the error says how to go on without it. */
function clusterAccess(io: CliIo): KubeAccess {
  try {
    return (io.kubeAccess ?? (() => loadKubeAccess(io.env)))();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(
      `${message}; or run without a cluster with --no-cluster (objects are then validated offline against the CRDs)`,
    );
  }
}

/** `kubectl agd import ...` (src/import/). */
async function runImportCli(io: CliIo): Promise<number> {
  let client: ControlPlaneClient | undefined;
  try {
    const options = parseImportArgs(io.argv.slice(1));
    if (options === 'help') {
      io.stdout(IMPORT_USAGE);
      return 0;
    }
    const given = credentialsFrom(options.controlPlaneUrl, options.apiKeyFile, io.env);
    if (!given.baseUrl)
      throw new ImportUsageError('no control plane: give --control-plane-url or set CONTROL_PLANE_URL');
    let credentials: Credentials;
    try {
      credentials = resolveCredentials(undefined, () => undefined, credentialsPolicy(given));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new ImportUsageError(
        `the credentials (--control-plane-url or CONTROL_PLANE_URL, and the key): ${why}`,
      );
    }
    const access = options.cluster ? clusterAccess(io) : undefined;
    client = new ControlPlaneClient({ credentials });
    return await runImport(options, credentials, client, io, access && clusterCheck(kubePlanReads(access)));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`kubectl-agd import: ${message}${err instanceof ImportUsageError ? ' (see --help)' : ''}\n`);
    return 1;
  } finally {
    await client?.close();
  }
}

export const VERSION_USAGE = `Usage: kubectl agd version [options]

Prints this plugin's version and, when the kubeconfig's cluster answers, the version of the controller
running there (as it publishes it in the settings ConfigMap of its namespace, believed only when owned
by its Deployment there) and the versions the CRDs serve.

Options:
      --no-cluster             the plugin's version only
      --operator-namespace NS  the controller's namespace (default agent-deployment-operator)
  -h, --help                   this text
`;

/** `kubectl agd version`: never fails for the cluster, which is an aside. */
async function runVersionCli(io: CliIo): Promise<number> {
  let values: { 'no-cluster'?: boolean; 'operator-namespace'?: string | undefined; help?: boolean };
  try {
    values = parseArgs({
      args: io.argv.slice(1),
      options: {
        'no-cluster': { type: 'boolean', default: false },
        'operator-namespace': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (err) {
    io.stderr(`kubectl-agd version: ${err instanceof Error ? err.message : String(err)} (see --help)\n`);
    return 1;
  }
  if (values.help) {
    io.stdout(VERSION_USAGE);
    return 0;
  }
  if (values['no-cluster']) {
    io.stdout(formatVersions(undefined));
    return 0;
  }
  let access: KubeAccess;
  try {
    access = (io.kubeAccess ?? (() => loadKubeAccess(io.env)))();
  } catch (err) {
    io.stdout(formatVersions({ unreachable: err instanceof Error ? err.message : String(err) }));
    return 0;
  }
  io.stdout(formatVersions(await clusterVersions(access, values['operator-namespace'])));
  return 0;
}

/** The commands and the usage each parses, for completion (src/cli/complete.ts). */
const COMMANDS: CommandSpec[] = [
  { name: 'plan', description: 'what the controller would do for the objects given', usage: USAGE },
  { name: 'import', description: 'write the objects of existing deployments', usage: IMPORT_USAGE },
  { name: 'version', description: 'the plugin, controller and CRD versions', usage: VERSION_USAGE },
  ...VERBS.map((v) => ({ name: v.name, description: v.description, usage: v.usage, takesNames: true })),
];

/** Runs the CLI; resolves with the exit code. */
export async function runCli(io: CliIo): Promise<number> {
  const kubeAccess = () => (io.kubeAccess ?? (() => loadKubeAccess(io.env)))();
  if (io.argv[0] === 'import') return runImportCli(io);
  if (io.argv[0] === 'version') return runVersionCli(io);
  const verb = VERBS.find((v) => v.name === io.argv[0]);
  if (verb) return runVerb(verb, { ...io, kubeAccess });
  if (io.argv[0] === '__complete') {
    const names = (command: string, typed: string, namespace: string | undefined) => {
      const named = VERBS.find((v) => v.name === command);
      return named ? namesToComplete(kubeAccess(), named, typed, namespace) : Promise.resolve([]);
    };
    io.stdout(await complete(io.argv.slice(1), COMMANDS, { FORMAT: OUTPUT_FORMATS }, names));
    return 0;
  }
  let options: ReturnType<typeof parseCli>;
  try {
    options = parseCli(io.argv, io.env);
    if (options === 'help') {
      io.stdout(USAGE);
      return 0;
    }
    const inputs = readInputs(options.files, io.stdin);
    if (inputs.objects.length === 0 && !options.allowEmpty) {
      const others = inputs.ignored > 0 ? ` (${inputs.ignored} object(s) of other kinds)` : '';
      throw new Error(
        `the input holds no AgentDeployment or SandboxTemplate${others}: nothing to plan; give --allow-empty if that is expected`,
      );
    }
    const access = options.cluster ? clusterAccess(io) : undefined;
    let digestKey = options.digestKey;
    if (!digestKey && access && options.operatorNamespace) {
      const key = await new OperatorKeySecret(access, options.operatorNamespace).peek();
      if (key) digestKey = secretsDigestKeyFrom(key);
    }
    const clients = new Map<string, ControlPlaneClient>();
    const world: PlanWorld = {
      kube: access ? kubePlanReads(access, options.operatorNamespace) : undefined,
      defaultCredentials: options.credentials,
      allowedControlPlanes: options.allowedControlPlanes,
      digestKey,
      showValues: options.showValues,
      ...(options.valuesNamespaces ? { valuesNamespaces: options.valuesNamespaces } : {}),
      controlPlane(credentials) {
        const key = credentialsKey(credentials);
        let client = clients.get(key);
        if (!client) {
          client = new ControlPlaneClient({ credentials });
          clients.set(key, client);
        }
        return readOnly(client);
      },
    };
    const namespace = options.namespace ?? access?.namespace ?? 'default';
    // Read beside the plan: a controller of another version would act as its own code says, not ours.
    const versionNote = access ? planVersionNote(access, options.operatorNamespace) : undefined;
    try {
      const entries = await planObjects(inputs.objects, namespace, world, inputs.secrets, options.prune);
      io.stdout(formatPlan(entries, options.output, io.isTty && options.output === 'text'));
      const note = await versionNote;
      if (note) io.stderr(`kubectl-agd: warning: ${note}\n`);
      if (inputs.ignored > 0) io.stderr(`kubectl-agd: ${inputs.ignored} object(s) of other kinds left out\n`);
      return exitCodeOf(entries);
    } finally {
      await Promise.all([...clients.values()].map((c) => c.close()));
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(
      `kubectl-agd: ${message.replace(/\s*\n\s*/g, ' ')}${err instanceof UsageError ? ' (see --help)' : ''}\n`,
    );
    return 1;
  }
}

/** The program: `kubectl agd ARGS` (the npm package's bin/kubectl-agd.cjs and the single file call it). */
export async function main(args: readonly string[]): Promise<void> {
  process.exitCode = await runCli({
    argv: args,
    env: process.env,
    stdin: () => readFileSync(0, 'utf8'),
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    isTty: process.stdout.isTTY === true,
  });
}

// No top-level await: the single-file build bundles this module as CommonJS (scripts/single-file.ts).
if (import.meta.main) void main(process.argv.slice(2));
