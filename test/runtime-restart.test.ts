// The informer and the leader elector across an API server restart, on a cluster of this file's own.

import { CoreV1Api, KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeAccess, kubeAccessFromFile } from '../src/kube/access.ts';
import { type LocalCluster, startLocalCluster } from '../src/localcluster/index.ts';
import { startInformer } from '../src/runtime/informer.ts';
import { startLeaderElection } from '../src/runtime/leader.ts';

const lines: Array<Record<string, unknown>> = [];
const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });

describe('runtime across restartApiServer()', () => {
  let cluster: LocalCluster;
  let kc: KubeConfig;
  let access: KubeAccess;
  let core: CoreV1Api;

  beforeAll(async () => {
    cluster = await startLocalCluster();
    kc = new KubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    access = kubeAccessFromFile(cluster.kubeconfigPath);
    core = kc.makeApiClient(CoreV1Api);
  });
  afterAll(() => cluster?.stop());

  it('the informer recovers and sees changes made after the restart', async () => {
    const seen: string[] = [];
    const informer = startInformer<V1ConfigMap>({
      access,
      path: '/api/v1/configmaps',
      namespaces: ['default'],
      logger,
      // Recovery, not the backoff's ceiling, is under test: client-go's 30 s (jittered up to 60 s) could
      // outlast the wait below after the faults of a restart.
      maxBackoffMs: 2_000,
      onAdd: (cm) => seen.push(`add ${cm.metadata?.name}`),
      onUpdate: (_, cm) => seen.push(`update ${cm.metadata?.name} ${cm.data?.v}`),
    });
    const elector = startLeaderElection({
      access,
      namespace: 'default',
      name: 'restart-lock',
      identity: 'only',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 200,
      logger,
      onStartedLeading: () => seen.push('leading'),
      onStoppedLeading: () => seen.push('lost'),
    });
    try {
      await expect.poll(() => informer.hasSynced()).toBe(true);
      await expect.poll(() => elector.isLeader()).toBe(true);
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'before' } } });
      await expect.poll(() => seen).toContain('add before');

      await cluster.restartApiServer();
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'after' }, data: { v: '1' } },
      });
      await core.replaceNamespacedConfigMap({
        namespace: 'default',
        name: 'after',
        body: { metadata: { name: 'after' }, data: { v: '2' } },
      });
      // Seen through the watch (added, then updated) or, when the relist after the restart's faults comes
      // later than both writes, through the relist (added at v2): either way the cache ends at v2.
      await expect
        .poll(() => informer.get('default', 'after')?.data, { timeout: 60_000 })
        .toEqual({ v: '2' });
      expect(seen.some((s) => s === 'add after' || s === 'update after 2')).toBe(true);
      // The watch really broke and was restarted (not merely kept open).
      expect(lines.some((l) => l.msg === 'list/watch failed; restarting')).toBe(true);
      // A restart shorter than the renew deadline does not cost the lease.
      expect(elector.isLeader()).toBe(true);
      expect(seen).not.toContain('lost');
    } finally {
      await informer.stop();
      await elector.release();
    }
  });
});
