// vitest globalSetup for the integration project: one local API server per run, with the CRDs installed.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { waitCrdsEstablished } from '../../src/localcluster/crds-established.ts';
import { startLocalCluster } from '../../src/localcluster/index.ts';
import { runKubectl } from './kubectl-runner.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin kubeconfig of the run's local API server. */
    kubeconfigPath: string;
    /** Directory holding kubectl, helm, kube-apiserver and etcd. */
    kubeBinDir: string;
  }
}

const CRD_DIR = resolve(import.meta.dirname, '../../crds');

function crdFiles(): string[] {
  try {
    return readdirSync(CRD_DIR)
      .filter((name) => /\.ya?ml$/.test(name))
      .sort()
      .map((name) => join(CRD_DIR, name));
  } catch {
    return []; // no crds/ yet
  }
}

/** Applies crds/*.yaml server-side and waits until every CRD among them is Established. */
async function installCrds(binDir: string, kubeconfigPath: string): Promise<void> {
  const files = crdFiles();
  if (files.length === 0) return;
  const kubectl = async (args: string[]) => {
    const result = await runKubectl(binDir, kubeconfigPath, args);
    if (result.code !== 0) throw new Error(`kubectl ${args[0]} failed: ${result.stderr.trim()}`);
    return result.stdout;
  };
  const applied = await kubectl(['apply', '--server-side', '-o', 'name', ...files.flatMap((f) => ['-f', f])]);
  const crds = applied.split('\n').filter((name) => name.startsWith('customresourcedefinition'));
  if (crds.length > 0) {
    await waitCrdsEstablished(join(binDir, 'kubectl'), crds, {
      kubectlArgs: ['--kubeconfig', kubeconfigPath],
    });
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startLocalCluster({ log: (line) => process.stderr.write(`${line}\n`) });
  try {
    await installCrds(cluster.binDir, cluster.kubeconfigPath);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  project.provide('kubeconfigPath', cluster.kubeconfigPath);
  project.provide('kubeBinDir', cluster.binDir);
  process.env.KUBECONFIG_TEST = cluster.kubeconfigPath;
  return () => cluster.stop();
}
