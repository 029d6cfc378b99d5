/**
 * Captures src/api/kubernetes/core-v1.openapi.json from the pinned kube-apiserver (scripts/kube-binaries.sh):
 * starts a throwaway local API server, reads `/version` and `/openapi/v3/api/v1`, keeps the closure of the
 * schemas the CRDs embed. `make kube-openapi` runs it after a Kubernetes version bump; then `make generate`.
 */
import { writeFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { Agent, fetch } from 'undici';
import { OPENAPI_PATH, SNAPSHOT_FILE, snapshotOf } from '../src/api/kubernetes/openapi.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';

/** GET `path` from the API server of `kubeconfigPath` as JSON. */
export async function getJson(kubeconfigPath: string, path: string): Promise<unknown> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error(`${kubeconfigPath}: no current cluster`);
  const options: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {};
  await kc.applyToHTTPSOptions(options);
  const dispatcher = new Agent({ connect: { ca: options.ca, cert: options.cert, key: options.key } });
  const response = await fetch(new URL(path, server), { dispatcher });
  if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
  return response.json();
}

async function main(): Promise<void> {
  const cluster = await startLocalCluster({ log: (line) => process.stderr.write(`${line}\n`) });
  try {
    const version = (await getJson(cluster.kubeconfigPath, '/version')) as { gitVersion: string };
    const document = await getJson(cluster.kubeconfigPath, OPENAPI_PATH);
    writeFileSync(SNAPSHOT_FILE, `${JSON.stringify(snapshotOf(document, version.gitVersion), null, 2)}\n`);
    console.log(`wrote ${SNAPSHOT_FILE} (Kubernetes ${version.gitVersion})`);
  } finally {
    await cluster.stop();
  }
}

if (import.meta.main) await main();
