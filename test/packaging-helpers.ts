/**
 * Shared by the packaging tests: run the built helm against the run's API server, split rendered YAML,
 * and check RBAC rules against the one list in scripts/rbac-rules.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import yaml from 'js-yaml';
import { inject } from 'vitest';
import { aggregateLabel, allowedPermissions, type PolicyRule, permissionsOf } from '../scripts/rbac-rules.ts';
import { KubeAccess } from '../src/kube/access.ts';
import { loadKubeconfigFiles } from '../src/kube/kubeconfig.ts';
import { targetOf } from '../src/kube/target.ts';
import { kubectl, testKubeconfigPath } from './support/kube.ts';

export const REPO = resolve(import.meta.dirname, '..');
export const CHART = join(REPO, 'helm/agent-deployment-operator');

export interface RunResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs a command; a non-zero exit is a result, not an exception. */
export function run(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {},
): Promise<RunResult> {
  const child = spawn(command, args, { env: options.env ?? process.env, cwd: options.cwd });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => stdout.push(c));
  child.stderr.on('data', (c: Buffer) => stderr.push(c));
  child.stdin.end(options.input);
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code) =>
      done({
        stdout: Buffer.concat(stdout).toString(),
        stderr: Buffer.concat(stderr).toString(),
        code: code ?? -1,
      }),
    );
  });
}

// Helm keeps its cache and config in these; point them at a temp dir so tests touch nothing of the user's.
const helmHome = mkdtempSync(join(tmpdir(), 'helm-home-'));

/**
 * The Kubernetes version `helm template` renders for: the test cluster's. A helm built with `go install`
 * lacks the release build's ldflags and would assume Kubernetes 1.20, which the chart's kubeVersion refuses.
 */
const renderKubeVersion = (binDir: string) => /kube-(v\d+\.\d+\.\d+)-/.exec(binDir)?.[1] ?? 'v1.36.0';

/** Runs the built helm with the test kubeconfig. */
export function helm(args: readonly string[]): Promise<RunResult> {
  const binDir = inject('kubeBinDir');
  const kubeVersion =
    args[0] === 'template' && !args.includes('--kube-version')
      ? ['--kube-version', renderKubeVersion(binDir)]
      : [];
  return run(join(binDir, 'helm'), ['--kubeconfig', testKubeconfigPath(), ...args, ...kubeVersion], {
    env: {
      ...process.env,
      HELM_CACHE_HOME: join(helmHome, 'cache'),
      HELM_CONFIG_HOME: join(helmHome, 'config'),
      HELM_DATA_HOME: join(helmHome, 'data'),
    },
  });
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** Every non-empty document of a multi-document YAML stream. */
export function parseDocuments(text: string): K8sObject[] {
  return yaml.loadAll(text).filter((d): d is K8sObject => d !== null && typeof d === 'object');
}

/** ClusterRoles for people (aggregated into view, edit and admin), not for the controller. */
export function isAggregatedRole(o: K8sObject): boolean {
  const labels = (o.metadata.labels ?? {}) as Record<string, string>;
  return o.kind === 'ClusterRole' && Object.keys(labels).some((l) => l.startsWith(aggregateLabel('')));
}

/** The "group/resource:verb" permissions the controller's Roles and ClusterRoles among `objects` grant. */
export function grantedPermissions(objects: readonly K8sObject[]): string[] {
  return objects
    .filter((o) => (o.kind === 'Role' || o.kind === 'ClusterRole') && !isAggregatedRole(o))
    .flatMap((o) => ((o.rules as PolicyRule[] | undefined) ?? []).flatMap(permissionsOf));
}

/** Granted permissions the controller does not use (the list scripts/rbac-rules.ts keeps). */
export function excessPermissions(objects: readonly K8sObject[]): string[] {
  const allowed = allowedPermissions();
  return grantedPermissions(objects).filter((p) => !allowed.has(p));
}

/**
 * Installs the chart as `release` in `namespace` (with `--set` values), and returns a kubeconfig that
 * authenticates as its service account: the operator then runs with exactly the chart's RBAC.
 */
export async function installChartAs(
  release: string,
  namespace: string,
  sets: readonly string[],
): Promise<KubeAccess> {
  const installed = await helm([
    'install',
    release,
    CHART,
    '--namespace',
    namespace,
    ...sets.flatMap((s) => ['--set', s]),
  ]);
  if (installed.code !== 0) throw new Error(`helm install ${release}: ${installed.stderr}`);
  const token = await kubectl(['create', 'token', `${release}-agent-deployment-operator`, '--duration=1h'], {
    namespace,
  });
  if (token.code !== 0) throw new Error(`kubectl create token: ${token.stderr}`);
  // The run's API server, as the chart's service account: its token, no client certificate.
  const admin = targetOf(loadKubeconfigFiles([testKubeconfigPath()]));
  return new KubeAccess({
    ...admin,
    source: `${release} service account`,
    tls: { ...admin.tls, cert: undefined, key: undefined },
    auth: { token: token.stdout.trim() },
  });
}

/** A stream whose lines (a logger's output) are appended to `lines`. */
export function lineSink(lines: string[]): Writable {
  return new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
}
