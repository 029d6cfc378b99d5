// The README's run command: the whole product on one machine. Starts (or reuses) the local API server,
// installs the CRDs, starts the control-plane simulator, applies the examples and runs the controller in
// the foreground, as the container does, until Ctrl-C. Nothing here is needed against a real cluster.
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { findRunningLocalCluster, startLocalCluster } from '../src/localcluster/index.ts';
import {
  DEFAULT_API_KEY,
  EXAMPLE_TEMPLATES,
  EXAMPLES_DIR_TEMPLATE,
  startSimulator,
} from '../src/simulator/index.ts';
import { writeShellEnv } from './shell-env.ts';

const root = join(import.meta.dirname, '..');
const stateDir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'agent-operator', 'cluster');
const log = (line: string) => process.stderr.write(`run: ${line}\n`);

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', env, cwd: root });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')}: exit ${code}`)),
    );
  });
}

const cluster =
  (await findRunningLocalCluster(stateDir)) ??
  (await startLocalCluster({ dir: stateDir, detached: true, log }));
const kubectl = join(cluster.binDir, 'kubectl');
const kubeEnv = { ...process.env, KUBECONFIG: cluster.kubeconfigPath };
const envFile = writeShellEnv(stateDir, cluster);
log(`API server ${cluster.server}; kubeconfig ${cluster.kubeconfigPath}`);

await run(kubectl, ['apply', '--server-side', '-f', 'crds/'], kubeEnv);
await run(kubectl, ['wait', '--for=condition=Established', '--timeout=60s', '-f', 'crds/'], kubeEnv);

const simulator = await startSimulator({
  templates: [...EXAMPLE_TEMPLATES, EXAMPLES_DIR_TEMPLATE],
  port: Number(process.env.SIMULATOR_PORT ?? 0),
  apiKeys: [process.env.SIMULATOR_API_KEY ?? DEFAULT_API_KEY],
  revisionStepMs: Number(process.env.SIMULATOR_REVISION_STEP_MS ?? 1500),
});
log(`control-plane simulator ${simulator.url}`);

await run(kubectl, ['apply', '-f', 'examples/'], kubeEnv);

const controller = spawn(process.execPath, [join(root, 'src/main.ts')], {
  stdio: 'inherit',
  cwd: root,
  env: {
    ...kubeEnv,
    CONTROL_PLANE_URL: simulator.url,
    CONTROL_PLANE_API_KEY: process.env.SIMULATOR_API_KEY ?? DEFAULT_API_KEY,
    LEADER_ELECT: process.env.LEADER_ELECT ?? 'false',
    HTTP_PORT: process.env.HTTP_PORT ?? '8080',
    POLL_INTERVAL: process.env.POLL_INTERVAL ?? '30s',
  },
});
log('controller started; in another shell:');
log(`  source ${envFile}    # KUBECONFIG, and the built kubectl and helm on PATH`);
log('  kubectl get agd,sbt -A -w');
log('Ctrl-C stops the controller and the simulator; `make cluster-down` stops the API server.');

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  controller.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
const code = await new Promise<number>((resolve) => controller.once('exit', (c) => resolve(c ?? 1)));
await simulator.close();
process.exit(stopping ? 0 : code);
