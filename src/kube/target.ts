/**
 * Where requests to the API server go and how they authenticate (a KubeTarget): from a kubeconfig's
 * context, every field checked and anything this client cannot honour refused by name (a request sent
 * without the credentials it was meant to carry fails later and less clearly), or from the pod's service
 * account; and the controller's default, found in kubectl's order. The file format is kubeconfig.ts's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  type ClusterEntry,
  type ExecConfig,
  KubeconfigError,
  kubeconfigPaths,
  type LoadedFile,
  loadKubeconfigFiles,
} from './kubeconfig.ts';

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
