/**
 * A real Argo CD against the run's API server, without a cluster to run it in: argocd-repo-server and
 * argocd-application-controller as local processes (built from the Go module proxy by
 * scripts/argocd-binaries.sh), an in-memory Redis, Argo CD's CRDs, argocd-cm with this project's health
 * checks, the default AppProject, and a git repository in a local directory.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitCrdsEstablished } from '../../src/localcluster/crds-established.ts';
import { REPO } from '../packaging-helpers.ts';
import { kubectl, testKubeconfigPath } from './kube.ts';

export const ARGOCD_NAMESPACE = 'argocd';

/** Builds (once, cached) or finds the Argo CD binaries; returns their directory. */
export function argocdBinDir(): string {
  const out = execFileSync(join(REPO, 'scripts/argocd-binaries.sh'), {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').at(-1) as string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ArgoCd {
  /** Output of the three processes, for a failing test to show. */
  logs: string[];
  stop(): Promise<void>;
}

const must = async (args: string[], input?: string) => {
  const result = await kubectl(args, input === undefined ? {} : { input });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
};

/** Argo CD's CRDs, argocd-cm with the health checks, argocd-secret and the default AppProject. */
async function installArgoCdObjects(binDir: string, kubeBinDir: string): Promise<void> {
  const crdDir = join(binDir, 'crds');
  for (const file of readdirSync(crdDir).sort()) {
    await must(['apply', '--server-side', '--force-conflicts', '-f', join(crdDir, file)]);
  }
  await waitCrdsEstablished(
    join(kubeBinDir, 'kubectl'),
    ['crd/applications.argoproj.io', 'crd/appprojects.argoproj.io'],
    { kubectlArgs: ['--kubeconfig', testKubeconfigPath()] },
  );
  await must(['create', 'namespace', ARGOCD_NAMESPACE, '--dry-run=client', '-o', 'yaml']).then((yaml) =>
    must(['apply', '-f', '-'], yaml),
  );
  // The snippet docs/install.md tells users to merge into argocd-cm, applied as is.
  await must(['apply', '--server-side', '--force-conflicts', '-f', join(REPO, 'argocd/argocd-cm.yaml')]);
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'argocd-secret',
      namespace: ARGOCD_NAMESPACE,
      labels: { 'app.kubernetes.io/part-of': 'argocd' },
    },
    type: 'Opaque',
  };
  const project = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AppProject',
    metadata: { name: 'default', namespace: ARGOCD_NAMESPACE },
    spec: {
      sourceRepos: ['*'],
      destinations: [{ server: '*', namespace: '*' }],
      clusterResourceWhitelist: [{ group: '*', kind: '*' }],
    },
  };
  await must(
    ['apply', '--server-side', '--force-conflicts', '-f', '-'],
    `${JSON.stringify(secret)}\n${JSON.stringify(project)}`,
  );
}

function startProcess(
  bin: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logs: string[],
  label: string,
): ChildProcess {
  const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line) logs.push(`${label}: ${line}`);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return child;
}

async function waitForPort(port: number, child: ChildProcess, label: string): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    if (child.exitCode !== null) throw new Error(`${label} exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${label} did not listen on ${port}`);
}

/** Starts Redis, the repo server and the application controller against the run's API server. */
export async function startArgoCd(binDir: string, kubeBinDir: string): Promise<ArgoCd> {
  await installArgoCdObjects(binDir, kubeBinDir);
  const logs: string[] = [];
  const home = mkdtempSync(join(tmpdir(), 'argocd-home-'));
  const [redisPort, repoPort, repoMetrics, controllerMetrics] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const env = {
    PATH: `${binDir}:${kubeBinDir}:${process.env.PATH ?? ''}`,
    HOME: home,
    ARGOCD_GPG_ENABLED: 'false',
    // The in-cluster destination (https://kubernetes.default.svc) through KUBECONFIG: no pod to run in.
    ARGOCD_FAKE_IN_CLUSTER: 'true',
    ARGOCD_EXEC_TIMEOUT: '60s',
    ARGOCD_REPO_SERVER_PLAINTEXT: 'true',
    KUBECONFIG: testKubeconfigPath(),
    TMPDIR: home,
  };
  const redis = startProcess(join(binDir, 'redis-server'), [`127.0.0.1:${redisPort}`], env, logs, 'redis');
  await waitForPort(redisPort, redis, 'redis');
  const repo = startProcess(
    join(binDir, 'argocd-repo-server'),
    [
      '--port',
      String(repoPort),
      '--metrics-port',
      String(repoMetrics),
      '--redis',
      `127.0.0.1:${redisPort}`,
      '--disable-tls',
      '--loglevel',
      'info',
    ],
    env,
    logs,
    'repo-server',
  );
  await waitForPort(repoPort, repo, 'repo-server');
  const controller = startProcess(
    join(binDir, 'argocd-application-controller'),
    [
      '--kubeconfig',
      testKubeconfigPath(),
      '--namespace',
      ARGOCD_NAMESPACE,
      '--repo-server',
      `127.0.0.1:${repoPort}`,
      '--repo-server-plaintext',
      '--redis',
      `127.0.0.1:${redisPort}`,
      '--metrics-port',
      String(controllerMetrics),
      '--status-processors',
      '4',
      '--operation-processors',
      '2',
      '--app-resync',
      '5',
      // Argo CD 3 keeps resource health in Redis only; the tests read it from the Application.
      '--persist-resource-health',
      '--self-heal-timeout-seconds',
      '1',
      '--loglevel',
      'info',
    ],
    env,
    logs,
    'application-controller',
  );
  await waitForPort(controllerMetrics, controller, 'application-controller');
  const children = [controller, repo, redis];
  return {
    logs,
    stop: async () => {
      for (const child of children) {
        if (child.exitCode !== null) continue;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    },
  };
}

/** A git repository in a local directory holding `files` (path -> content), committed on main. */
export function localGitRepo(files: Record<string, string>): {
  url: string;
  dir: string;
  commit(files: Record<string, string>): void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'argocd-git-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@e',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@e',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  git('init', '-q', '-b', 'main');
  const commit = (more: Record<string, string>) => {
    for (const [path, content] of Object.entries(more)) {
      const target = join(dir, path);
      execFileSync('mkdir', ['-p', join(target, '..')]);
      writeFileSync(target, content);
    }
    git('add', '-A');
    git('commit', '-q', '-m', 'update');
  };
  commit(files);
  return { url: `file://${dir}`, dir, commit };
}
