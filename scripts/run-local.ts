// The README's run command: the whole product on one machine. Starts (or reuses) the local API server,
// installs the CRDs, starts the control-plane simulator, applies the examples and runs the controller in
// the foreground, as the container does, until Ctrl-C. Nothing here is needed against a real cluster.
// On a terminal the controller's JSON log lines are shown as readable lines; piped (CI), as they are.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CONTROLLER_DEPLOYMENT, controllerStandIn } from '../src/localcluster/controller-stand-in.ts';
import { waitCrdsEstablished } from '../src/localcluster/crds-established.ts';
import { findRunningLocalCluster, startLocalCluster } from '../src/localcluster/index.ts';
import {
  DEFAULT_API_KEY,
  EXAMPLE_TEMPLATES,
  EXAMPLES_DIR_TEMPLATE,
  startSimulator,
} from '../src/simulator/index.ts';
import { prettyLogs } from './pretty-logs.ts';
import { type ShellEnv, writeKubectlPlugin, writeShellEnv } from './shell-env.ts';

const root = join(import.meta.dirname, '..');
const stateDir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'agent-operator', 'cluster');
const log = (line: string) => process.stderr.write(`run: ${line}\n`);
/** The controller's namespace and Deployment name, as manifests/ makes them. */
const CONTROLLER = CONTROLLER_DEPLOYMENT;

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
const shell: ShellEnv = {
  kubeconfigPath: cluster.kubeconfigPath,
  binDir: cluster.binDir,
  pluginDir: writeKubectlPlugin(stateDir, root),
};
log(`API server ${cluster.server}; kubeconfig ${cluster.kubeconfigPath}`);

await run(kubectl, ['apply', '--server-side', '-f', 'crds/'], kubeEnv);
await waitCrdsEstablished(kubectl, ['-f', join(root, 'crds')], { env: kubeEnv });

const apiKey = process.env.SIMULATOR_API_KEY ?? DEFAULT_API_KEY;
const simulator = await startSimulator({
  templates: [...EXAMPLE_TEMPLATES, EXAMPLES_DIR_TEMPLATE],
  port: Number(process.env.SIMULATOR_PORT ?? 0),
  apiKeys: [apiKey],
  revisionStepMs: Number(process.env.SIMULATOR_REVISION_STEP_MS ?? 1500),
});
log(`control-plane simulator ${simulator.url}`);
const envFile = writeShellEnv(stateDir, { ...shell, controlPlane: { url: simulator.url, apiKey } });

await run(kubectl, ['apply', '-f', 'examples/'], kubeEnv);
// The controller's own namespace, as the manifests make it: its key Secret and the settings ConfigMap
// `kubectl agd plan` reads (--operator-namespace's default) live there.
await run(kubectl, ['apply', '-f', join(root, 'manifests', 'namespace.yaml')], kubeEnv);
// The controller runs here, not in a pod: a Deployment of no replicas stands for the one an install runs
// it in, which the settings ConfigMap names as its owner (the plan believes it only then).
const standIn = join(stateDir, 'controller-deployment.json');
writeFileSync(standIn, JSON.stringify(controllerStandIn(CONTROLLER, `${CONTROLLER}:local`)));
await run(kubectl, ['apply', '-f', standIn], kubeEnv);

const pretty = process.stdout.isTTY === true;
const controller = spawn(process.execPath, [join(root, 'src/main.ts')], {
  stdio: ['inherit', pretty ? 'pipe' : 'inherit', 'inherit'],
  cwd: root,
  env: {
    ...kubeEnv,
    CONTROL_PLANE_URL: simulator.url,
    CONTROL_PLANE_API_KEY: apiKey,
    POD_NAMESPACE: CONTROLLER,
    OPERATOR_DEPLOYMENT: CONTROLLER,
    LEADER_ELECT: process.env.LEADER_ELECT ?? 'false',
    HTTP_PORT: process.env.HTTP_PORT ?? '8080',
    POLL_INTERVAL: process.env.POLL_INTERVAL ?? '30s',
  },
});
if (pretty) controller.stdout?.pipe(prettyLogs(process.stdout, true));
log('controller started; in another shell:');
log(`  source ${envFile}`);
log('    # KUBECONFIG; the built kubectl and helm, and kubectl agd, on PATH; CONTROL_PLANE_URL and');
log('    # CONTROL_PLANE_API_KEY of this simulator, which kubectl agd plan reads');
log('  kubectl get agd,sbt -A -w');
log('  kubectl agd plan -f examples/');
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
// The simulator is gone: the env file no longer points at it.
writeShellEnv(stateDir, shell);
process.exit(stopping ? 0 : code);
