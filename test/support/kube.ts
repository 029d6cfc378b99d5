// Helpers for integration tests: reach the run's local API server (started by global-setup.ts).
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { type KubeAccess, kubeAccessFromFile } from '../../src/kube/access.ts';
import { type KubectlOptions, type KubectlResult, runKubectl } from './kubectl-runner.ts';

export type { KubectlOptions, KubectlResult } from './kubectl-runner.ts';

/** Path of the admin kubeconfig global-setup.ts provided. */
export function testKubeconfigPath(): string {
  const path = inject('kubeconfigPath') ?? process.env.KUBECONFIG_TEST;
  if (!path) throw new Error('no test kubeconfig: run this file in the vitest integration project');
  return path;
}

let access: KubeAccess | undefined;

/** The operator's own client for the run's API server (one connection pool per test file). */
export function kubeAccessFromProvided(): KubeAccess {
  access ??= kubeAccessFromFile(testKubeconfigPath());
  return access;
}

/** client-node's typed clients, for what a test does as a user would (not the operator's code). */
export function kubeConfigFromProvided(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(testKubeconfigPath());
  return config;
}

/** Runs the built kubectl against the test API server. Resolves with the exit code; never throws on it. */
export function kubectl(args: readonly string[], options?: KubectlOptions): Promise<KubectlResult> {
  return runKubectl(inject('kubeBinDir'), testKubeconfigPath(), args, options);
}

/**
 * Creates a namespace named `<prefix>-<random>` and returns its name. Nothing deletes namespaces here
 * (no namespace controller runs), so names must be unique per test.
 */
export async function createTestNamespace(prefix: string): Promise<string> {
  const base = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, 50)
    .replace(/^-+|-+$/g, '');
  const name = `${base || 'test'}-${randomBytes(4).toString('hex')}`;
  const core = kubeConfigFromProvided().makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name } } });
  return name;
}
