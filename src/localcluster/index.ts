import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AdminCredentials, apiRequest } from './api-client.ts';
import { ensureKubeBinaries } from './binaries.ts';
import { generatePki, type Pki, pkiPaths } from './certs.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { freePorts } from './ports.ts';
import {
  isPidAlive,
  isProcessRunning,
  type ManagedProcess,
  spawnManaged,
  terminatePid,
} from './processes.ts';
import { type ClusterState, readClusterState, stateFile, writeClusterState } from './state.ts';

export { ensureKubeBinaries } from './binaries.ts';

/** A running etcd + kube-apiserver pair on loopback, reachable through `kubeconfigPath`. */
export interface LocalCluster {
  readonly kubeconfigPath: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** Holds kube-apiserver, kubectl, etcd and helm. */
  readonly binDir: string;
  /** State directory: certificates, etcd data, logs, kubeconfig, pidfile (cluster.json). */
  readonly dir: string;
  /** Stops everything this cluster started. Idempotent. */
  stop(): Promise<void>;
  /** Stops kube-apiserver and starts it again on the same port and etcd (for fault tests). */
  restartApiServer(): Promise<void>;
  /** The process ids of kube-apiserver (the current one, after a restart) and etcd: the bench reads their CPU. */
  pids(): { apiServer: number; etcd: number };
}

export interface LocalClusterOptions {
  /** Fixed state directory (its previous cluster is stopped first); default: a fresh temp directory. */
  readonly dir?: string;
  readonly log?: (line: string) => void;
  /** Leave the servers running after this process exits (scripts/cluster.ts up). Default false. */
  readonly detached?: boolean;
  /** How long etcd and kube-apiserver each get to become ready. Default 120 s. */
  readonly readyTimeoutMs?: number;
}

/** What `findRunningLocalCluster` reports about a cluster left running in a directory. */
export interface RunningCluster {
  readonly kubeconfigPath: string;
  readonly server: string;
  readonly binDir: string;
}

// Temp clusters live under one root so that a later run can find and remove orphans.
const TEMP_ROOT = join(tmpdir(), 'agent-operator-clusters');
const APISERVER = 'kube-apiserver';
const ETCD = 'etcd';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function logTail(file: string, lines = 15): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Polls `ready` until it is true; fails early when the process exits, or after `timeoutMs`. */
async function waitReady(
  server: ManagedProcess,
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  let exited = false;
  void server.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    if (exited || Date.now() > deadline) {
      const why = exited ? 'exited' : `was not ready after ${timeoutMs} ms`;
      throw new Error(
        `${server.name} ${why}; last lines of ${server.logFile}:\n${await logTail(server.logFile)}`,
      );
    }
    await sleep(100);
  }
}

async function loadCredentials(pki: Pki): Promise<AdminCredentials> {
  const [ca, cert, key] = await Promise.all(
    [pki.caCert, pki.adminCert, pki.adminKey].map((f) => readFile(f)),
  );
  if (!ca || !cert || !key) throw new Error('missing PKI files');
  return { ca, cert, key };
}

const pkiIn = (dir: string) => join(dir, 'pki');

async function isApiServerReady(server: string, credentials: AdminCredentials): Promise<boolean> {
  return (await apiRequest(server, credentials, 'GET', '/readyz')).status === 200;
}

/** kube-apiserver creates `default` itself shortly after start; make sure it is there before tests run. */
async function ensureDefaultNamespace(server: string, credentials: AdminCredentials): Promise<void> {
  const existing = await apiRequest(server, credentials, 'GET', '/api/v1/namespaces/default');
  if (existing.status === 200) return;
  const created = await apiRequest(server, credentials, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'default' },
  });
  if (created.status !== 201 && created.status !== 409) {
    throw new Error(`creating namespace default failed with HTTP ${created.status}`);
  }
}

/** Stops the processes recorded in `state`, kube-apiserver first. */
async function terminateRecorded(state: ClusterState): Promise<void> {
  const order = [APISERVER, ETCD, ...Object.keys(state.processes)];
  for (const name of new Set(order)) {
    const entry = state.processes[name];
    if (entry) await terminatePid(entry.pid, entry.binary);
  }
}

/** Removes temp clusters whose owning process died without stopping them (killed, crashed). */
async function removeOrphans(log: (line: string) => void): Promise<void> {
  const entries = await readdir(TEMP_ROOT).catch(() => []);
  for (const entry of entries) {
    const dir = join(TEMP_ROOT, entry);
    const state = await readClusterState(dir);
    if (!state || state.ownerPid === null || isPidAlive(state.ownerPid)) continue;
    log(`localcluster: removing orphaned cluster ${dir}`);
    await terminateRecorded(state);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Stops the cluster recorded in `dir`'s pidfile, whoever started it. Returns false when none was running.
 */
export async function stopLocalClusterInDir(dir: string): Promise<boolean> {
  const state = await readClusterState(dir);
  if (!state) return false;
  const wasRunning = Object.values(state.processes).some((p) => isProcessRunning(p.pid, p.binary));
  await terminateRecorded(state);
  await rm(stateFile(dir), { force: true });
  return wasRunning;
}

/** The cluster recorded in `dir`, when all its processes still run and the API server is ready. */
export async function findRunningLocalCluster(dir: string): Promise<RunningCluster | undefined> {
  const state = await readClusterState(dir);
  if (!state?.server || !state.kubeconfigPath || !state.binDir) return undefined;
  const processes = Object.values(state.processes);
  if (processes.length === 0 || !processes.every((p) => isProcessRunning(p.pid, p.binary))) return undefined;
  const credentials = await loadCredentials(pkiPaths(pkiIn(dir))).catch(() => undefined);
  if (!credentials || !(await isApiServerReady(state.server, credentials).catch(() => false)))
    return undefined;
  return { kubeconfigPath: state.kubeconfigPath, server: state.server, binDir: state.binDir };
}

/**
 * Starts etcd and kube-apiserver on free loopback ports (building the binaries first on a fresh
 * machine), waits for /readyz and writes an admin kubeconfig. Flags follow controller-runtime's envtest:
 * no controllers run, so there is no garbage collection, namespace finalization or default ServiceAccount.
 */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const log = options.log ?? (() => {});
  const detached = options.detached ?? false;
  const timeoutMs = options.readyTimeoutMs ?? 120_000;

  await removeOrphans(log);
  const ownsDir = options.dir === undefined;
  let dir: string;
  if (options.dir === undefined) {
    await mkdir(TEMP_ROOT, { recursive: true });
    dir = await mkdtemp(join(TEMP_ROOT, 'c-'));
  } else {
    dir = options.dir;
    if (await stopLocalClusterInDir(dir))
      log(`localcluster: stopped the cluster previously running in ${dir}`);
    for (const stale of ['etcd-data', 'pki', 'logs'])
      await rm(join(dir, stale), { recursive: true, force: true });
  }
  await mkdir(join(dir, 'logs'), { recursive: true });
  const state: ClusterState = { ownerPid: detached ? null : process.pid, processes: {} };
  await writeClusterState(dir, state);

  const started: ManagedProcess[] = [];
  const start = async (name: string, binary: string, args: string[]) => {
    const child = spawnManaged(name, binary, args, { logFile: join(dir, 'logs', `${name}.log`), detached });
    started.push(child);
    state.processes[name] = { pid: child.pid, binary };
    await writeClusterState(dir, state);
    return child;
  };

  try {
    const [binDir, pki] = await Promise.all([ensureKubeBinaries(log), generatePki(pkiIn(dir))]);
    const credentials = await loadCredentials(pki);
    const [etcdClientPort, etcdPeerPort, apiPort] = await freePorts(3);
    const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
    const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
    const server = `https://127.0.0.1:${apiPort}`;

    const began = Date.now();
    const etcd = await start(ETCD, join(binDir, ETCD), [
      '--name=default',
      `--data-dir=${join(dir, 'etcd-data')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]);
    const etcdReady = waitReady(etcd, async () => (await fetch(`${etcdUrl}/health`)).ok, timeoutMs).then(() =>
      log(`localcluster: etcd ready on ${etcdUrl} after ${Date.now() - began} ms`),
    );

    const apiServerArgs = [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${pkiIn(dir)}`,
      `--tls-cert-file=${pki.servingCert}`,
      `--tls-private-key-file=${pki.servingKey}`,
      `--client-ca-file=${pki.caCert}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      '--authorization-mode=RBAC',
      `--service-account-issuer=${server}/`,
      `--service-account-key-file=${pki.serviceAccountPub}`,
      `--service-account-signing-key-file=${pki.serviceAccountKey}`,
      // No node runs on loopback: keep the apiserver from publishing 127.0.0.1 as the `kubernetes` endpoint.
      '--endpoint-reconciler-type=none',
    ];
    const startApiServer = async () => {
      const startedAt = Date.now();
      const apiServer = await start(APISERVER, join(binDir, APISERVER), apiServerArgs);
      await waitReady(apiServer, () => isApiServerReady(server, credentials), timeoutMs);
      log(`localcluster: kube-apiserver ready on ${server} after ${Date.now() - startedAt} ms`);
      return apiServer;
    };
    // etcd and kube-apiserver start side by side: the apiserver retries etcd until it answers.
    let [, apiServer] = await Promise.all([etcdReady, startApiServer()]);
    await ensureDefaultNamespace(server, credentials);

    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeKubeconfig(kubeconfigPath, server, pki);
    Object.assign(state, { server, kubeconfigPath, binDir });
    await writeClusterState(dir, state);

    let stopping: Promise<void> | undefined;
    return {
      kubeconfigPath,
      server,
      binDir,
      dir,
      stop() {
        stopping ??= (async () => {
          await apiServer.stop();
          await etcd.stop();
          if (ownsDir) await rm(dir, { recursive: true, force: true });
          else await rm(stateFile(dir), { force: true });
        })();
        return stopping;
      },
      async restartApiServer() {
        await apiServer.stop();
        apiServer = await startApiServer();
      },
      pids: () => ({ apiServer: apiServer.pid, etcd: etcd.pid }),
    };
  } catch (error) {
    for (const child of started.reverse()) await child.stop(1_000);
    if (ownsDir) await rm(dir, { recursive: true, force: true });
    else await rm(stateFile(dir), { force: true });
    throw error;
  }
}
