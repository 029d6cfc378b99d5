import { existsSync } from 'node:fs';
import { CoreV1Api, KubeConfig, type V1ConfigMap, VersionApi, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalCluster, startLocalCluster } from '../src/localcluster/index.ts';
import { createTestNamespace, kubeConfigFromProvided, kubectl } from './support/kube.ts';

interface WatchEvent {
  readonly phase: string;
  readonly object: V1ConfigMap;
}

/** Watches `path` until `wanted` matches an event; returns it and stops watching. */
async function nextEvent(
  config: KubeConfig,
  path: string,
  wanted: (event: WatchEvent) => boolean,
  start: () => Promise<unknown>,
): Promise<WatchEvent> {
  let controller: AbortController | undefined;
  const seen = new Promise<WatchEvent>((resolve, reject) => {
    new Watch(config)
      .watch(
        path,
        {},
        (phase, object: V1ConfigMap) => {
          if (wanted({ phase, object })) resolve({ phase, object });
        },
        (error) => reject(error ?? new Error('watch closed before the event arrived')),
      )
      .then((c) => {
        controller = c;
      }, reject);
  });
  await start();
  try {
    return await seen;
  } finally {
    controller?.abort();
  }
}

describe('the run-wide local API server (global setup)', () => {
  it('reports the Kubernetes version the binaries were built at', async () => {
    const version = await kubeConfigFromProvided().makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toBe('v1.36.3');
  });

  it('has the default namespace', async () => {
    const result = await kubectl(['get', 'namespace', 'default', '-o', 'name']);
    expect(result).toMatchObject({ code: 0, stdout: 'namespace/default\n' });
  });

  it('creates namespaces and ConfigMaps and streams watch events for them', async () => {
    const config = kubeConfigFromProvided();
    const core = config.makeApiClient(CoreV1Api);
    const namespace = await createTestNamespace('localcluster');
    const path = `/api/v1/namespaces/${namespace}/configmaps`;

    const added = await nextEvent(
      config,
      path,
      (e) => e.phase === 'ADDED' && e.object.metadata?.name === 'probe',
      () =>
        core.createNamespacedConfigMap({
          namespace,
          body: { metadata: { name: 'probe' }, data: { a: '1' } },
        }),
    );
    expect(added.object.data).toEqual({ a: '1' });

    const modified = await nextEvent(
      config,
      path,
      (e) => e.phase === 'MODIFIED' && e.object.data?.a === '2',
      () => kubectl(['patch', 'configmap', 'probe', '-p', '{"data":{"a":"2"}}'], { namespace }),
    );
    expect(modified.object.metadata?.namespace).toBe(namespace);
  });

  it('returns kubectl failures as exit codes', async () => {
    const result = await kubectl(['get', 'configmap', 'does-not-exist', '--namespace', 'default']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('NotFound');
  });
});

describe('a cluster of its own (restart and stop)', () => {
  let cluster: LocalCluster;
  let core: CoreV1Api;

  beforeAll(async () => {
    cluster = await startLocalCluster();
    const config = new KubeConfig();
    config.loadFromFile(cluster.kubeconfigPath);
    core = config.makeApiClient(CoreV1Api);
  });
  afterAll(() => cluster?.stop());

  it('keeps data across restartApiServer()', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'survivor' }, data: { kept: 'yes' } },
    });
    await cluster.restartApiServer();
    const read = await core.readNamespacedConfigMap({ namespace: 'default', name: 'survivor' });
    expect(read.data).toEqual({ kept: 'yes' });
  });

  it('stop() ends the servers and removes its temporary directory', async () => {
    await cluster.stop();
    expect(existsSync(cluster.dir)).toBe(false);
    await expect(core.listNamespace()).rejects.toThrow();
  });
});
