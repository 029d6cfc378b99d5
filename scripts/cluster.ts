// Starts or stops the long-lived local API server (etcd + kube-apiserver) used by `make run` and by people
// working on the operator. `up` prints the kubeconfig path as its last line; `down` stops it.
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  findRunningLocalCluster,
  startLocalCluster,
  stopLocalClusterInDir,
} from '../src/localcluster/index.ts';
import { writeShellEnv } from './shell-env.ts';

const stateDir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'agent-operator', 'cluster');
const log = (line: string) => process.stderr.write(`${line}\n`);

async function up(): Promise<void> {
  const running = await findRunningLocalCluster(stateDir);
  if (running) {
    log(`cluster: already running at ${running.server}; source ${writeShellEnv(stateDir, running)}`);
    process.stdout.write(`${running.kubeconfigPath}\n`);
    return;
  }
  const cluster = await startLocalCluster({ dir: stateDir, detached: true, log });
  log(`cluster: running at ${cluster.server} (binaries in ${cluster.binDir}, logs in ${cluster.dir}/logs)`);
  log(`cluster: source ${writeShellEnv(stateDir, cluster)} for KUBECONFIG and kubectl on PATH`);
  process.stdout.write(`${cluster.kubeconfigPath}\n`);
}

async function down(): Promise<void> {
  const stopped = await stopLocalClusterInDir(stateDir);
  log(stopped ? 'cluster: stopped' : 'cluster: was not running');
}

const command = process.argv[2];
if (command === 'up') await up();
else if (command === 'down') await down();
else {
  log('usage: node scripts/cluster.ts up|down');
  process.exitCode = 2;
}
