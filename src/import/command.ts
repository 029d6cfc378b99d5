/**
 * `kubectl agd import`: lists the deployments the given credentials reach (by name substring, by ids, or
 * all), turns each into an AgentDeployment that adopts it (and a Secret for its secrets), proves each
 * reproduces its deployment exactly (expressible.ts), and writes YAML to standard output or one file per
 * object. It only reads the control plane. Exit code: 0 written, 1 a problem (named on standard error).
 */
import { parseArgs } from 'node:util';
import type { ControlPlaneClient } from '../controlplane/client.ts';
import type { Credentials } from '../controlplane/credentials.ts';
import type { Deployment } from '../controlplane/schemas.ts';
import { cleanPeerText } from '../lib/peer-text.ts';
import type { ClusterCheck } from './cluster.ts';
import { expressibilityProblems } from './expressible.ts';
import { type Imported, importDeployment } from './manifests.ts';
import { objectYaml, writeAll } from './output.ts';
import { unechoedFields } from './reverse.ts';

export const IMPORT_USAGE = `Usage: kubectl agd import (--all | --name-contains TEXT | --id ID [--id ID ...]) [options]

Writes, for each deployment the credentials reach, an AgentDeployment that reproduces it exactly and
adopts it by id (deploy.agents.dev/adopt-deployment-id), and a Secret for its secrets: applied with
the controller running, nothing is sent to the control plane. A deployment the operator cannot
express exactly is named on standard error and not written. It only reads the control plane.

Options:
      --all                    every deployment of the tenant
      --name-contains TEXT     deployments whose name contains TEXT (case-insensitive)
      --id ID                  a deployment by id (repeat for several)
  -n, --namespace NS           namespace of the objects written (default: default)
      --output-dir DIR         one file per object (<name>.yaml, with its Secret) instead of standard
                               output; nothing is written unless every object can be
      --control-plane-url URL  the control plane (or CONTROL_PLANE_URL)
      --api-key-file PATH      a file holding the API key (or CONTROL_PLANE_API_KEY;
                               CONTROL_PLANE_BEARER_TOKEN and CONTROL_PLANE_TENANT_ID are read too)
      --no-cluster             do not check the objects with the cluster (by default each is checked
                               with a server-side dry run through the kubeconfig, as kubectl finds it)
  -h, --help                   this text

Exit code: 0 every object written, 1 a problem (no match, a failed listing, an object not expressible).
`;

export class ImportUsageError extends Error {}

export type ImportFilter = { all: true } | { nameContains: string } | { ids: string[] };

export interface ImportOptions {
  filter: ImportFilter;
  namespace: string;
  outputDir: string | undefined;
  controlPlaneUrl: string | undefined;
  apiKeyFile: string | undefined;
  /** Check each object with a server-side dry run (the default). */
  cluster: boolean;
}

export function parseImportArgs(argv: readonly string[]): ImportOptions | 'help' {
  let parsed: ReturnType<typeof parse>;
  function parse() {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        all: { type: 'boolean', default: false },
        'name-contains': { type: 'string' },
        id: { type: 'string', multiple: true },
        namespace: { type: 'string', short: 'n' },
        'output-dir': { type: 'string' },
        'control-plane-url': { type: 'string' },
        'api-key-file': { type: 'string' },
        'no-cluster': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  }
  try {
    parsed = parse();
  } catch (err) {
    throw new ImportUsageError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length > 1)
    throw new ImportUsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
  const ids = values.id ?? [];
  const nameContains = values['name-contains'];
  const chosen = [values.all, nameContains !== undefined, ids.length > 0].filter(Boolean).length;
  if (chosen !== 1)
    throw new ImportUsageError('give exactly one of --all, --name-contains TEXT or --id ID (repeatable)');
  if (nameContains === '') throw new ImportUsageError('--name-contains: must not be empty (use --all)');
  const filter: ImportFilter = values.all
    ? { all: true }
    : nameContains !== undefined
      ? { nameContains }
      : { ids: [...new Set(ids)] };
  return {
    filter,
    namespace: values.namespace ?? 'default',
    outputDir: values['output-dir'],
    controlPlaneUrl: values['control-plane-url'],
    apiKeyFile: values['api-key-file'],
    cluster: !values['no-cluster'],
  };
}

export interface ImportIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The longest line said on standard error. */
const MAX_LINE = 4000;

/**
 * One line on standard error. Lines quote the platform (names, what the API server says of them), so
 * each is cleaned (cleanPeerText: no control characters, escapes or line breaks) before the terminal.
 */
const sayer = (io: ImportIo) => (line: string) =>
  io.stderr(`kubectl-agd import: ${cleanPeerText(line, MAX_LINE)}\n`);
type Say = ReturnType<typeof sayer>;

type Lister = Pick<ControlPlaneClient, 'listAllDeployments'>;

/** What the filter finds; a filter that finds nothing, or an id not found, is an error. */
async function listed(client: Lister, filter: ImportFilter): Promise<Deployment[]> {
  const found = await client.listAllDeployments(
    'ids' in filter
      ? { deploymentIds: filter.ids }
      : 'nameContains' in filter
        ? { nameContains: filter.nameContains }
        : {},
  );
  if ('ids' in filter) {
    const missing = filter.ids.filter((id) => !found.some((d) => d.id === id));
    if (missing.length > 0)
      throw new Error(`no deployment with id ${missing.join(', ')} under these credentials`);
  }
  if (found.length === 0) {
    const what =
      'nameContains' in filter ? ` whose name contains ${JSON.stringify(filter.nameContains)}` : '';
    throw new Error(`no deployment${what} under these credentials: nothing to import`);
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Objects whose names would collide once made Kubernetes names. */
function collisions(objects: readonly Imported[]): Map<Imported, string> {
  const byName = new Map<string, Imported[]>();
  for (const o of objects) {
    const name = o.agentDeployment.metadata.name;
    byName.set(name, [...(byName.get(name) ?? []), o]);
  }
  const out = new Map<Imported, string>();
  for (const [name, group] of byName) {
    if (group.length < 2 || name === '') continue;
    const names = group.map((o) => JSON.stringify(o.deployment.name)).join(', ');
    for (const o of group)
      out.set(
        o,
        `deployments ${names} would all be the object ${name}: import them one at a time with --id, and rename one`,
      );
  }
  return out;
}

/** The problems of one object: offline first, then the cluster's dry run (when there is a cluster). */
async function problemsOf(o: Imported, check: ClusterCheck | undefined, say: Say, label: string) {
  const problems = expressibilityProblems(o);
  if (problems.length > 0 || !check) return problems;
  let verdict: Awaited<ReturnType<ClusterCheck>>;
  try {
    verdict = await check(o.agentDeployment);
  } catch (err) {
    throw new Error(
      `cannot check ${label} with the cluster (${err instanceof Error ? err.message : String(err)}): fix the kubeconfig or the namespace, or give --no-cluster; nothing was written`,
    );
  }
  if (verdict.note) say(`${label}: ${verdict.note}`);
  return verdict.refusal ? [verdict.refusal] : [];
}

/**
 * Runs an import with a client for the given credentials (and a check of each object with the cluster,
 * unless there is none); resolves with the exit code.
 */
export async function runImport(
  options: ImportOptions,
  credentials: Credentials,
  client: Lister,
  io: ImportIo,
  check?: ClusterCheck,
): Promise<number> {
  const say = sayer(io);
  let deployments: Deployment[];
  try {
    deployments = await listed(client, options.filter);
  } catch (err) {
    say(
      `cannot list deployments at ${credentials.baseUrl}: ${err instanceof Error ? err.message : String(err)}`,
    );
    return 1;
  }
  const objects = deployments.map((d) => importDeployment(d, options.namespace));
  const clashes = collisions(objects);
  const good: Imported[] = [];
  for (const o of objects) {
    const label = `deployment ${o.deployment.id} (${o.deployment.name})`;
    const clash = clashes.get(o);
    let problems: string[];
    try {
      problems = clash ? [clash] : await problemsOf(o, check, say, label);
    } catch (err) {
      say(err instanceof Error ? err.message : String(err));
      return 1;
    }
    if (problems.length > 0) {
      say(`${label}: not written, the operator cannot express it exactly: ${problems.join('; ')}`);
      continue;
    }
    const unechoed = unechoedFields(o.deployment);
    if (unechoed.length > 0) {
      say(
        `${label}: the platform does not return ${unechoed.join(', ')}: if the deployment has them, add them to the spec before applying (nothing is guessed)`,
      );
    }
    good.push(o);
  }
  const revealed = good.filter((o) => o.revealed.length > 0);
  const written = options.outputDir !== undefined && good.length < objects.length ? [] : good;
  if (written.length > 0 && revealed.length > 0) {
    say(
      `warning: the output holds secret values the platform revealed (${revealed.map((o) => o.agentDeployment.metadata.name).join(', ')}): keep it out of git, or move the values to your secret store`,
    );
  }
  if (options.outputDir === undefined) {
    io.stdout(written.map(objectYaml).join(''));
  } else if (written.length > 0) {
    for (const path of writeAll(options.outputDir, written)) say(`wrote ${path}`);
  } else {
    say(`nothing written to ${options.outputDir}: every object must be expressible`);
  }
  return good.length === objects.length ? 0 : 1;
}
