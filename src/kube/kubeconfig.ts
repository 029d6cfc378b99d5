/**
 * The kubeconfig as kubectl reads it, reduced to what a request needs: the current context's server,
 * TLS settings, credentials and namespace. Files are merged as kubectl merges the KUBECONFIG list (the
 * first file to set current-context, or to name a cluster, user or context, wins), relative paths are
 * resolved against the file that names them, and every field this client cannot honour is refused by
 * name instead of being ignored (a request sent without the credentials it was meant to carry fails
 * later and less clearly).
 *
 * Our own loader rather than @kubernetes/client-node's KubeConfig: that class imports the library's whole
 * generated API, about 60 MiB of resident memory in a controller that uses none of it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import yaml from 'js-yaml';
import { z } from 'zod';

/** A kubeconfig that cannot be used, with the file and the field that say why. */
export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

const ExecEnv = z.object({ name: z.string(), value: z.string() });

const ExecConfig = z.looseObject({
  command: z.string().min(1),
  args: z.array(z.string()).nullish(),
  env: z.array(ExecEnv).nullish(),
  apiVersion: z.string().min(1),
  installHint: z.string().nullish(),
  provideClusterInfo: z.boolean().nullish(),
  interactiveMode: z.string().nullish(),
});
export type ExecConfig = z.infer<typeof ExecConfig>;

const Cluster = z.looseObject({
  server: z.string().min(1),
  'certificate-authority': z.string().nullish(),
  'certificate-authority-data': z.string().nullish(),
  'insecure-skip-tls-verify': z.boolean().nullish(),
  'tls-server-name': z.string().nullish(),
  'proxy-url': z.string().nullish(),
});

const User = z.looseObject({
  token: z.string().nullish(),
  tokenFile: z.string().nullish(),
  'client-certificate': z.string().nullish(),
  'client-certificate-data': z.string().nullish(),
  'client-key': z.string().nullish(),
  'client-key-data': z.string().nullish(),
  username: z.string().nullish(),
  password: z.string().nullish(),
  as: z.string().nullish(),
  'as-uid': z.string().nullish(),
  'as-groups': z.array(z.string()).nullish(),
  'as-user-extra': z.record(z.string(), z.array(z.string())).nullish(),
  'auth-provider': z.unknown().optional(),
  exec: ExecConfig.nullish(),
});

const Context = z.looseObject({
  cluster: z.string().min(1),
  user: z.string().nullish(),
  namespace: z.string().nullish(),
});

const KubeconfigFile = z.looseObject({
  'current-context': z.string().nullish(),
  clusters: z.array(z.looseObject({ name: z.string().min(1), cluster: Cluster })).nullish(),
  users: z.array(z.looseObject({ name: z.string().min(1), user: User.nullish() })).nullish(),
  contexts: z.array(z.looseObject({ name: z.string().min(1), context: Context })).nullish(),
});

type ClusterEntry = z.infer<typeof Cluster>;
type UserEntry = z.infer<typeof User>;
type ContextEntry = z.infer<typeof Context>;

/** What a request to the API server needs, resolved from a kubeconfig or the pod's service account. */
export interface KubeTarget {
  /** Where it came from, for messages: the kubeconfig path(s) and context, or "in-cluster". */
  source: string;
  /** The API server's base URL, without a trailing slash. */
  server: string;
  /** The context's namespace, when it names one. */
  namespace?: string | undefined;
  tls: {
    ca?: Buffer | undefined;
    cert?: Buffer | undefined;
    key?: Buffer | undefined;
    insecure: boolean;
    serverName?: string | undefined;
  };
  proxyUrl?: string | undefined;
  /** What an exec plugin with provideClusterInfo is told of the cluster (client.authentication.k8s.io Cluster). */
  execCluster?: Record<string, unknown>;
  /** At most one way to authenticate besides a client certificate. */
  auth: {
    token?: string;
    tokenFile?: string;
    exec?: ExecConfig;
    basic?: { username: string; password: string };
  };
  impersonate?: { user?: string; uid?: string; groups: string[]; extra: Record<string, string[]> };
}

interface LoadedFile {
  path: string;
  currentContext: string | undefined;
  clusters: Map<string, ClusterEntry>;
  users: Map<string, UserEntry>;
  contexts: Map<string, ContextEntry>;
}

/** Parses one kubeconfig file's text; relative file paths in it resolve against `path`'s directory. */
export function parseKubeconfig(text: string, path: string): LoadedFile {
  let raw: unknown;
  try {
    raw = yaml.load(text);
  } catch (err) {
    throw new KubeconfigError(`${path}: not YAML (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = KubeconfigFile.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? pathLabel(raw, issue.path) : '';
    throw new KubeconfigError(`${path}: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  const base = dirname(resolve(path));
  const file = (value: string | null | undefined) =>
    value ? (isAbsolute(value) ? value : join(base, value)) : undefined;
  // kubectl's rule: a command with a path separator is a file relative to the kubeconfig; a bare name
  // is looked up on PATH when the plugin runs.
  const command = (exec: ExecConfig): ExecConfig =>
    exec.command.includes(sep) && !isAbsolute(exec.command)
      ? { ...exec, command: join(base, exec.command) }
      : exec;
  const byName = <T>(entries: ReadonlyArray<{ name: string; value: T }>) => {
    const map = new Map<string, T>();
    for (const { name, value } of entries) if (!map.has(name)) map.set(name, value);
    return map;
  };
  const clusters = byName(
    (parsed.data.clusters ?? []).map((e) => ({
      name: e.name,
      value: { ...e.cluster, 'certificate-authority': file(e.cluster['certificate-authority']) },
    })),
  );
  const users = byName(
    (parsed.data.users ?? []).map((e) => ({
      name: e.name,
      value: {
        ...(e.user ?? {}),
        'client-certificate': file(e.user?.['client-certificate']),
        'client-key': file(e.user?.['client-key']),
        tokenFile: file(e.user?.tokenFile),
        exec: e.user?.exec ? command(e.user.exec) : e.user?.exec,
      },
    })),
  );
  return {
    path,
    currentContext: parsed.data['current-context'] || undefined,
    clusters,
    users,
    contexts: byName((parsed.data.contexts ?? []).map((e) => ({ name: e.name, value: e.context }))),
  };
}

/** `users[name=dev].user.token` for an issue's path, so a message points at the entry, not an index. */
function pathLabel(raw: unknown, path: readonly PropertyKey[]): string {
  let node: unknown = raw;
  let label = '';
  for (const part of path) {
    const next = (node as Record<PropertyKey, unknown> | undefined)?.[part as string];
    if (typeof part === 'number') {
      const name = (next as { name?: unknown } | undefined)?.name;
      label += typeof name === 'string' ? `[name=${name}]` : `[${part}]`;
    } else {
      label += label ? `.${String(part)}` : String(part);
    }
    node = next;
  }
  return label || '(top level)';
}

/** kubectl's merge of several files: the first to set a value wins. */
export function mergeKubeconfigs(files: readonly LoadedFile[]): LoadedFile {
  const merged: LoadedFile = {
    path: files.map((f) => f.path).join(':'),
    currentContext: files.find((f) => f.currentContext)?.currentContext,
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
  };
  for (const f of files) {
    for (const kind of ['clusters', 'users', 'contexts'] as const) {
      for (const [name, entry] of f[kind] as Map<string, unknown>) {
        const into = merged[kind] as Map<string, unknown>;
        if (!into.has(name)) into.set(name, entry);
      }
    }
  }
  return merged;
}

/** The target of a context (default: current-context), every field checked. */
export function targetOf(config: LoadedFile, contextName?: string): KubeTarget {
  const where = config.path;
  const name = contextName ?? config.currentContext;
  if (!name) {
    throw new KubeconfigError(
      `${where}: no current-context: set one (kubectl config use-context NAME) or name a context`,
    );
  }
  const context = config.contexts.get(name);
  if (!context) {
    const which = contextName ? 'context' : 'current-context';
    throw new KubeconfigError(`${where}: ${which} "${name}" names no entry of contexts`);
  }
  const cluster = config.clusters.get(context.cluster);
  if (!cluster) {
    throw new KubeconfigError(
      `${where}: contexts[name=${name}].context.cluster "${context.cluster}" names no entry of clusters`,
    );
  }
  const user = context.user ? config.users.get(context.user) : {};
  if (!user) {
    throw new KubeconfigError(
      `${where}: contexts[name=${name}].context.user "${context.user}" names no entry of users`,
    );
  }
  const userField = `${where}: users[name=${context.user}].user`;
  const clusterField = `${where}: clusters[name=${context.cluster}].cluster`;

  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    throw new KubeconfigError(`${clusterField}.server: "${cluster.server}" is not a URL`);
  }
  if (server.protocol !== 'https:' && server.protocol !== 'http:') {
    throw new KubeconfigError(`${clusterField}.server: must be an https:// (or http://) URL`);
  }
  if (user['auth-provider'] !== undefined) {
    throw new KubeconfigError(
      `${userField}.auth-provider: auth providers (oidc, gcp, azure) are not supported; use an exec credential plugin (users[].user.exec, e.g. kubelogin or gke-gcloud-auth-plugin)`,
    );
  }
  const ways = [
    user.token ? 'token' : undefined,
    user.tokenFile ? 'tokenFile' : undefined,
    user.exec ? 'exec' : undefined,
    user.username || user.password ? 'username/password' : undefined,
  ].filter((w) => w !== undefined);
  // A token beside a tokenFile is the fallback while the file cannot be read (as in client-go);
  // anything else together is a mistake worth naming.
  if (ways.length > 1 && !(ways.length === 2 && ways.includes('token') && ways.includes('tokenFile'))) {
    throw new KubeconfigError(`${userField}: sets ${ways.join(' and ')}; keep one way to authenticate`);
  }
  if (!!user.username !== !!user.password) {
    throw new KubeconfigError(`${userField}: username and password go together`);
  }
  if (user.exec?.interactiveMode === 'Always') {
    throw new KubeconfigError(
      `${userField}.exec.interactiveMode: Always needs a terminal, which a controller does not have; use IfAvailable or Never`,
    );
  }
  // client-go: "specifying a root certificates file with the insecure flag is not allowed".
  const caField = cluster['certificate-authority-data']
    ? 'certificate-authority-data'
    : cluster['certificate-authority']
      ? 'certificate-authority'
      : undefined;
  if (cluster['insecure-skip-tls-verify'] && caField) {
    throw new KubeconfigError(
      `${clusterField}: ${caField} together with insecure-skip-tls-verify: true is not allowed (a CA to verify against, and no verification); drop one`,
    );
  }
  if (cluster['proxy-url']) {
    const proxy = URL.canParse(cluster['proxy-url']) ? new URL(cluster['proxy-url']) : undefined;
    if (!proxy || (proxy.protocol !== 'http:' && proxy.protocol !== 'https:')) {
      throw new KubeconfigError(`${clusterField}.proxy-url: only http:// and https:// proxies are supported`);
    }
  }

  const cert = bytes(
    user['client-certificate-data'],
    user['client-certificate'],
    `${userField}.client-certificate`,
  );
  const key = bytes(user['client-key-data'], user['client-key'], `${userField}.client-key`);
  if ((cert === undefined) !== (key === undefined)) {
    throw new KubeconfigError(`${userField}: client-certificate and client-key go together`);
  }
  const impersonate =
    user.as || user['as-uid'] || user['as-groups']?.length || user['as-user-extra']
      ? {
          ...(user.as ? { user: user.as } : {}),
          ...(user['as-uid'] ? { uid: user['as-uid'] } : {}),
          groups: user['as-groups'] ?? [],
          extra: user['as-user-extra'] ?? {},
        }
      : undefined;
  return {
    source: `${where} (context ${name})`,
    server: cluster.server.replace(/\/+$/, ''),
    namespace: context.namespace || undefined,
    tls: {
      ca: bytes(
        cluster['certificate-authority-data'],
        cluster['certificate-authority'],
        `${clusterField}.certificate-authority`,
      ),
      cert,
      key,
      insecure: cluster['insecure-skip-tls-verify'] === true,
      serverName: cluster['tls-server-name'] || undefined,
    },
    proxyUrl: cluster['proxy-url'] || undefined,
    ...(user.exec?.provideClusterInfo ? { execCluster: execClusterOf(cluster, clusterField) } : {}),
    auth: {
      ...(user.token ? { token: user.token } : {}),
      ...(user.tokenFile ? { tokenFile: user.tokenFile } : {}),
      ...(user.exec ? { exec: user.exec } : {}),
      ...(user.username && user.password
        ? { basic: { username: user.username, password: user.password } }
        : {}),
    },
    ...(impersonate ? { impersonate } : {}),
  };
}

/** The cluster as an exec plugin's KUBERNETES_EXEC_INFO carries it (spec.cluster). */
function execClusterOf(cluster: ClusterEntry, field: string): Record<string, unknown> {
  const ca = bytes(
    cluster['certificate-authority-data'],
    cluster['certificate-authority'],
    `${field}.certificate-authority`,
  );
  return {
    server: cluster.server,
    ...(cluster['tls-server-name'] ? { 'tls-server-name': cluster['tls-server-name'] } : {}),
    ...(cluster['insecure-skip-tls-verify'] ? { 'insecure-skip-tls-verify': true } : {}),
    ...(ca ? { 'certificate-authority-data': ca.toString('base64') } : {}),
    ...(cluster['proxy-url'] ? { 'proxy-url': cluster['proxy-url'] } : {}),
  };
}

/** Inline base64 data, or the file it names; the data wins, as in kubectl. */
function bytes(
  data: string | null | undefined,
  file: string | null | undefined,
  field: string,
): Buffer | undefined {
  if (data) {
    const compact = data.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
      throw new KubeconfigError(
        `${field}-data: not base64 (base64-encode the PEM, or name a PEM file in the field without -data)`,
      );
    }
    return Buffer.from(compact, 'base64');
  }
  if (!file) return undefined;
  try {
    return readFileSync(file);
  } catch (err) {
    throw new KubeconfigError(
      `${field}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
}

/** The files a KUBECONFIG value names (a colon-separated list; empty entries skipped). */
export function kubeconfigPaths(env: NodeJS.ProcessEnv): string[] {
  return (env.KUBECONFIG ?? '').split(':').filter((p) => p !== '');
}

/**
 * Reads and merges kubeconfig files. A file that cannot be read is an error naming it; with
 * `skipMissing` (a KUBECONFIG list, read as kubectl reads it) a file that does not exist is skipped,
 * and only none existing is an error.
 */
export function loadKubeconfigFiles(
  paths: readonly string[],
  options: { skipMissing?: boolean } = {},
): LoadedFile {
  const files: LoadedFile[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (options.skipMissing && code === 'ENOENT') continue;
      throw new KubeconfigError(`${path}: cannot read (${code ?? err})`);
    }
    files.push(parseKubeconfig(text, path));
  }
  if (files.length === 0 && paths.length > 0) {
    throw new KubeconfigError(`KUBECONFIG: none of its files exists (${paths.join(', ')})`);
  }
  return mergeKubeconfigs(files);
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The pod's own service account, as client-go's in-cluster config reads it; undefined outside a pod. */
export function inClusterTarget(env: NodeJS.ProcessEnv, dir = SERVICE_ACCOUNT_DIR): KubeTarget | undefined {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) return undefined;
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) return undefined;
  let ca: Buffer;
  try {
    ca = readFileSync(join(dir, 'ca.crt'));
  } catch {
    return undefined;
  }
  let namespace: string | undefined;
  try {
    namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim() || undefined;
  } catch {
    namespace = undefined;
  }
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    source: 'in-cluster service account',
    server: `https://${hostPart}:${port}`,
    namespace,
    tls: { ca, insecure: false },
    auth: { tokenFile },
  };
}

/**
 * Where the controller finds its cluster, in kubectl's order: the files KUBECONFIG names (those that
 * exist), else ~/.kube/config when it exists, else the pod's service account.
 */
export function defaultTarget(env: NodeJS.ProcessEnv, home = homedir()): KubeTarget {
  const listed = kubeconfigPaths(env);
  if (listed.length > 0) return targetOf(loadKubeconfigFiles(listed, { skipMissing: true }));
  const homeConfig = join(home, '.kube', 'config');
  if (existsSync(homeConfig)) return targetOf(loadKubeconfigFiles([homeConfig]));
  const inCluster = inClusterTarget(env);
  if (inCluster) return inCluster;
  throw new KubeconfigError(
    'no kubeconfig: KUBECONFIG is not set, ~/.kube/config does not exist, and this is not a pod with a service account',
  );
}
