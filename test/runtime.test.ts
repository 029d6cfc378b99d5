// The runtime against the run's real API server: informers, leader election, finalizer and status
// patches, events.
import {
  ApiextensionsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  type CoreV1Event,
  type KubeConfig,
  type KubernetesObject,
  type V1ConfigMap,
  V1MicroTime,
} from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KubeAccess } from '../src/kube/access.ts';
import { ConflictError, isNotFound, NotFoundError } from '../src/kube/errors.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { EventRecorder } from '../src/runtime/events.ts';
import { type RunningInformer, startInformer } from '../src/runtime/informer.ts';
import { type LeaderElector, startLeaderElection } from '../src/runtime/leader.ts';
import {
  addFinalizer,
  getObject,
  type ObjectRef,
  patchStatus,
  type ResourceType,
  removeFinalizer,
} from '../src/runtime/objects.ts';
import { createTestNamespace, kubeAccessFromProvided, kubeConfigFromProvided } from './support/kube.ts';

const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const configmaps: ResourceType = { group: '', version: 'v1', plural: 'configmaps' };

let kc: KubeConfig;
let access: KubeAccess;
let core: CoreV1Api;

beforeAll(() => {
  kc = kubeConfigFromProvided();
  access = kubeAccessFromProvided();
  core = kc.makeApiClient(CoreV1Api);
});

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Seen {
  event: 'add' | 'update' | 'delete';
  name: string;
  data?: Record<string, string>;
  oldData?: Record<string, string>;
}

function watchConfigMaps(options: { namespaces: string[]; labelSelector?: string }): {
  informer: RunningInformer<V1ConfigMap>;
  seen: Seen[];
} {
  const seen: Seen[] = [];
  const name = (cm: V1ConfigMap) => cm.metadata?.name ?? '';
  const informer = startInformer<V1ConfigMap>({
    access,
    path: '/api/v1/configmaps',
    ...options,
    logger,
    onAdd: (cm) => seen.push({ event: 'add', name: name(cm), data: cm.data }),
    onUpdate: (old, cm) => seen.push({ event: 'update', name: name(cm), data: cm.data, oldData: old.data }),
    onDelete: (cm) => seen.push({ event: 'delete', name: name(cm) }),
  });
  cleanups.push(() => informer.stop());
  return { informer, seen };
}

const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>) => ({
  metadata: { name, labels },
  data,
});

describe('startInformer', () => {
  it('lists, then sees adds, updates (with the old object) and deletes', async () => {
    const ns = await createTestNamespace('rt-informer');
    await core.createNamespacedConfigMap({ namespace: ns, body: configMap('before', { v: '0' }) });
    const { informer, seen } = watchConfigMaps({ namespaces: [ns] });

    await expect.poll(() => informer.hasSynced()).toBe(true);
    expect(informer.get(ns, 'before')?.data).toEqual({ v: '0' });
    expect(seen).toContainEqual({ event: 'add', name: 'before', data: { v: '0' } });

    await core.createNamespacedConfigMap({ namespace: ns, body: configMap('a', { v: '1' }) });
    await expect.poll(() => informer.get(ns, 'a')?.data).toEqual({ v: '1' });
    await core.replaceNamespacedConfigMap({ namespace: ns, name: 'a', body: configMap('a', { v: '2' }) });
    await expect
      .poll(() => seen.find((s) => s.event === 'update' && s.name === 'a'))
      .toEqual({ event: 'update', name: 'a', data: { v: '2' }, oldData: { v: '1' } });
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'a' });
    await expect.poll(() => seen.find((s) => s.event === 'delete')).toEqual({ event: 'delete', name: 'a' });
    expect(informer.get(ns, 'a')).toBeUndefined();
    expect(informer.list(ns).map((cm) => cm.metadata?.name)).toEqual(['before']);
    // Objects from the list carry kind and apiVersion, as watched ones do.
    expect(informer.get(ns, 'before')).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
  });

  it('watches only the namespaces and labels it is given', async () => {
    const [watched1, watched2, other] = await Promise.all(
      ['rt-ns1', 'rt-ns2', 'rt-other'].map((p) => createTestNamespace(p)),
    );
    const { informer, seen } = watchConfigMaps({
      namespaces: [watched1 as string, watched2 as string],
      labelSelector: 'team=a',
    });
    await expect.poll(() => informer.hasSynced()).toBe(true);
    const create = (ns: string | undefined, name: string, team: string) =>
      core.createNamespacedConfigMap({ namespace: ns as string, body: configMap(name, {}, { team }) });
    await create(other, 'elsewhere', 'a');
    await create(watched1, 'wrong-label', 'b');
    await create(watched1, 'one', 'a');
    await create(watched2, 'two', 'a');
    await expect.poll(() => informer.list().length).toBe(2);
    expect(informer.list(watched2).map((cm) => cm.metadata?.name)).toEqual(['two']);
    expect(seen.map((s) => s.name).sort()).toEqual(['one', 'two']);
  });

  it('keeps watching when a handler throws', async () => {
    const ns = await createTestNamespace('rt-throwing');
    const added: string[] = [];
    const informer = startInformer<V1ConfigMap>({
      access,
      path: '/api/v1/configmaps',
      namespaces: [ns],
      logger,
      onAdd: (cm) => {
        added.push(cm.metadata?.name ?? '');
        throw new Error('handler bug');
      },
    });
    cleanups.push(() => informer.stop());
    await expect.poll(() => informer.hasSynced()).toBe(true);
    for (const name of ['one', 'two']) {
      await core.createNamespacedConfigMap({ namespace: ns, body: configMap(name, {}) });
    }
    await expect.poll(() => added).toEqual(['one', 'two']);
  });

  it('is not synced while its list fails, and retries until the list succeeds', async () => {
    const ns = await createTestNamespace('rt-retry');
    let failuresLeft = 2;
    const informer = startInformer<V1ConfigMap>({
      access,
      path: '/api/v1/configmaps',
      namespaces: [ns],
      logger,
      initialBackoffMs: 50,
      list: async (namespace) => {
        if (failuresLeft-- > 0) throw new Error('list refused');
        return core.listNamespacedConfigMap({ namespace });
      },
    });
    cleanups.push(() => informer.stop());
    expect(informer.hasSynced()).toBe(false);
    await expect.poll(() => informer.hasSynced()).toBe(true);
    expect(failuresLeft).toBe(-1);
  });
});

describe('startLeaderElection', () => {
  const short = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 200 };
  // A lease far longer than the test's patience: a fast handover can only come from release().
  const long = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 200 };

  function elector(namespace: string, identity: string, log: string[], timings = short): LeaderElector {
    const e = startLeaderElection({
      access,
      namespace,
      name: 'operator-lock',
      identity,
      ...timings,
      logger,
      onStartedLeading: () => log.push(`${identity} started`),
      onStoppedLeading: () => log.push(`${identity} stopped`),
    });
    cleanups.push(() => e.release());
    return e;
  }

  it('lets one of two electors lead, never both, while the leader renews', async () => {
    const ns = await createTestNamespace('rt-leader');
    const log: string[] = [];
    const a = elector(ns, 'a', log);
    await expect.poll(() => a.isLeader()).toBe(true);
    const b = elector(ns, 'b', log);
    let both = false;
    const sampler = setInterval(() => {
      if (a.isLeader() && b.isLeader()) both = true;
    }, 10);
    // More than a lease duration: b must keep waiting because a renews.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    clearInterval(sampler);
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    expect(both).toBe(false);
    expect(log).toEqual(['a started']);
  });

  it('hands over on release', async () => {
    const ns = await createTestNamespace('rt-release');
    const log: string[] = [];
    const a = elector(ns, 'a', log, long);
    await expect.poll(() => a.isLeader()).toBe(true);
    const b = elector(ns, 'b', log, long);

    let both = false;
    const sampler = setInterval(() => {
      if (a.isLeader() && b.isLeader()) both = true;
    }, 10);
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(b.isLeader()).toBe(false);
      await a.release();
      expect(a.isLeader()).toBe(false);
      await expect.poll(() => b.isLeader(), { timeout: 5000 }).toBe(true);
    } finally {
      clearInterval(sampler);
    }
    expect(both).toBe(false);
    expect(log).toEqual(['a started', 'b started']);

    const lease = await kc
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: ns, name: 'operator-lock' });
    expect(lease.spec?.holderIdentity).toBe('b');
  });

  it('takes over a lease whose holder stopped renewing, only after it expires', async () => {
    const ns = await createTestNamespace('rt-expired');
    const stamp = new V1MicroTime();
    await kc.makeApiClient(CoordinationV1Api).createNamespacedLease({
      namespace: ns,
      body: {
        metadata: { name: 'operator-lock' },
        spec: { holderIdentity: 'ghost', leaseDurationSeconds: 2, acquireTime: stamp, renewTime: stamp },
      },
    });
    const log: string[] = [];
    const b = elector(ns, 'b', log);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(b.isLeader()).toBe(false);
    await expect.poll(() => b.isLeader(), { timeout: 5000 }).toBe(true);
    const lease = await kc
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: ns, name: 'operator-lock' });
    expect(lease.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  });
});

describe('finalizers', () => {
  const finalizer = 'deploy.agents.dev/test';

  async function freshConfigMap(): Promise<ObjectRef> {
    const ns = await createTestNamespace('rt-finalizers');
    await core.createNamespacedConfigMap({ namespace: ns, body: configMap('target', { v: '1' }) });
    const ref = { resource: configmaps, namespace: ns, name: 'target' };
    // Nothing else removes our finalizers in this cluster: leave the object deletable.
    cleanups.push(() =>
      core
        .patchNamespacedConfigMap({
          namespace: ns,
          name: 'target',
          body: [{ op: 'remove', path: '/metadata/finalizers' }],
        })
        .catch(() => undefined),
    );
    return ref;
  }

  it('adds and removes a finalizer, idempotently, keeping other writers’ finalizers', async () => {
    const ref = await freshConfigMap();
    const added = await addFinalizer(access, ref, finalizer);
    expect(added.metadata?.finalizers).toEqual([finalizer]);
    const again = await addFinalizer(access, ref, finalizer);
    expect(again.metadata?.resourceVersion).toBe(added.metadata?.resourceVersion);

    const other = await addFinalizer(access, ref, 'example.com/other');
    expect(other.metadata?.finalizers).toEqual([finalizer, 'example.com/other']);
    const removed = await removeFinalizer(access, ref, finalizer);
    expect(removed.metadata?.finalizers).toEqual(['example.com/other']);
    expect((await getObject(access, ref)).metadata?.finalizers).toEqual(['example.com/other']);
  });

  it.each([
    { name: 'object had no finalizers (resourceVersion guard)', startWith: [] as string[] },
    { name: 'object had finalizers (finalizers guard)', startWith: ['example.com/first'] },
  ])('refuses to add on a stale copy: $name', async ({ startWith }) => {
    const ref = await freshConfigMap();
    for (const f of startWith) await addFinalizer(access, ref, f);
    const stale = await getObject(access, ref);
    await addFinalizer(access, ref, 'example.com/concurrent');
    const error = await addFinalizer(access, ref, finalizer, stale).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    // The API server answers a failed JSON-patch `test` op with 422.
    expect(error).toMatchObject({ status: 422 });
    expect((await getObject(access, ref)).metadata?.finalizers).toEqual([
      ...startWith,
      'example.com/concurrent',
    ]);
  });

  it('refuses to remove on a stale copy', async () => {
    const ref = await freshConfigMap();
    await addFinalizer(access, ref, finalizer);
    const stale = await addFinalizer(access, ref, 'example.com/second');
    await removeFinalizer(access, ref, 'example.com/second');
    await addFinalizer(access, ref, 'example.com/third');
    await expect(removeFinalizer(access, ref, 'example.com/second', stale)).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect((await getObject(access, ref)).metadata?.finalizers).toEqual([finalizer, 'example.com/third']);
  });

  it('reports a missing object as NotFound', async () => {
    const ns = await createTestNamespace('rt-missing');
    const ref = { resource: configmaps, namespace: ns, name: 'absent' };
    await expect(getObject(access, ref)).rejects.toBeInstanceOf(NotFoundError);
    const error = await addFinalizer(access, ref, finalizer).catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
  });
});

describe('patchStatus', () => {
  // A throwaway CRD with a status subresource, so this does not depend on the project's CRDs.
  const widgets: ResourceType = { group: 'runtime-test.agents.dev', version: 'v1', plural: 'widgets' };

  beforeAll(async () => {
    const api = kc.makeApiClient(ApiextensionsV1Api);
    const name = 'widgets.runtime-test.agents.dev';
    // client-node's serializer knows this extension only by its property name, x_kubernetes_...
    const schema = { type: 'object', x_kubernetes_preserve_unknown_fields: true };
    await api
      .createCustomResourceDefinition({
        body: {
          metadata: { name },
          spec: {
            group: widgets.group,
            names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
            scope: 'Namespaced',
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                subresources: { status: {} },
                schema: { openAPIV3Schema: schema },
              },
            ],
          },
        },
      })
      .catch((error: unknown) => {
        if ((error as { code?: number }).code !== 409) throw error;
      });
    await vi.waitFor(
      async () => {
        const crd = await api.readCustomResourceDefinition({ name });
        expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
      },
      { timeout: 30_000, interval: 100 },
    );
  });

  /** A widget `w` in a new namespace; its reference. */
  async function createWidget(prefix: string) {
    const ns = await createTestNamespace(prefix);
    const path = `/apis/${widgets.group}/v1/namespaces/${ns}/widgets`;
    // The CRD's REST mapping can lag behind Established for a moment.
    await expect
      .poll(
        () =>
          kubeCreate(access, path, {
            apiVersion: `${widgets.group}/v1`,
            kind: 'Widget',
            metadata: { name: 'w' },
            spec: { size: 1 },
          }).then(
            () => true,
            () => false,
          ),
        { timeout: 30_000 },
      )
      .toBe(true);
    return { resource: widgets, namespace: ns, name: 'w' };
  }

  it('merge-patches only status, leaving spec and other status fields alone', async () => {
    const ref = await createWidget('rt-status');

    await patchStatus(access, ref, { phase: 'Ready', conditions: [{ type: 'Ready', status: 'True' }] });
    const patched = await patchStatus<KubernetesObject & { spec: unknown; status: unknown }>(access, ref, {
      phase: 'Done',
    });
    expect(patched.status).toEqual({ phase: 'Done', conditions: [{ type: 'Ready', status: 'True' }] });
    expect(patched.spec).toEqual({ size: 1 });
    // The status subresource ignores anything but status.
    const read = await getObject<KubernetesObject & { spec: unknown }>(access, ref);
    expect(read.spec).toEqual({ size: 1 });

    await expect(patchStatus(access, { ...ref, name: 'absent' }, { phase: 'x' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('a status computed from an older version is refused (409), never merged into the newer one', async () => {
    // Two passes read version V; the first writes (Ready at generation 3); the second, a handover's old
    // owner still in flight, writes what it computed from V (Ready True at generation 1). Merged, the
    // object would say observedGeneration 3 beside the other pass's Ready: a status neither wrote.
    const ref = await createWidget('rt-status-stale');
    const read = await getObject<KubernetesObject>(access, ref);
    const version = read.metadata?.resourceVersion;
    await patchStatus(access, ref, { observedGeneration: 3, ready: 'False' }, undefined, version);
    await expect(patchStatus(access, ref, { ready: 'True' }, undefined, version)).rejects.toBeInstanceOf(
      ConflictError,
    );
    const stored = await getObject<KubernetesObject & { status: unknown }>(access, ref);
    expect(stored.status).toEqual({ observedGeneration: 3, ready: 'False' });
  });
});

function kubeCreate(config: KubeAccess, path: string, body: unknown): Promise<unknown> {
  return kubeRequest(config, { method: 'POST', path, body });
}

describe('EventRecorder', () => {
  async function eventsIn(ns: string): Promise<CoreV1Event[]> {
    return (await core.listNamespacedEvent({ namespace: ns })).items;
  }

  it('creates events, aggregates repeats into a count, and truncates long messages', async () => {
    const ns = await createTestNamespace('rt-events');
    const cm = await core.createNamespacedConfigMap({ namespace: ns, body: configMap('subject', {}) });
    const ref = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'subject',
      uid: cm.metadata?.uid ?? '',
    };
    const recorder = new EventRecorder({ access, component: 'runtime-test', instance: 'pod-0', logger });

    await recorder.record(ref, 'Normal', 'Created', 'created the deployment');
    await recorder.record(ref, 'Normal', 'Created', 'created the deployment');
    await recorder.record(ref, 'Normal', 'Created', 'created the deployment');
    await recorder.record(ref, 'Warning', 'DeleteFailed', 'x'.repeat(5000));

    const events = await eventsIn(ns);
    expect(events).toHaveLength(2);
    const created = events.find((e) => e.reason === 'Created');
    expect(created).toMatchObject({
      type: 'Normal',
      count: 3,
      message: 'created the deployment',
      involvedObject: { kind: 'ConfigMap', name: 'subject', uid: ref.uid },
      source: { component: 'runtime-test', host: 'pod-0' },
      reportingComponent: 'runtime-test',
    });
    expect(new Date(created?.lastTimestamp ?? 0).getTime()).toBeGreaterThanOrEqual(
      new Date(created?.firstTimestamp ?? 0).getTime(),
    );
    expect(events.find((e) => e.reason === 'DeleteFailed')?.message).toHaveLength(1024);
  });

  it('combines similar events as the Kubernetes event recorder does, and thins a flood', async () => {
    const ns = await createTestNamespace('rt-events-similar');
    const refOf = async (name: string) => {
      const cm = await core.createNamespacedConfigMap({ namespace: ns, body: configMap(name, {}) });
      return { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name, uid: cm.metadata?.uid ?? '' };
    };
    const [similar, flooded] = [await refOf('similar'), await refOf('flooded')];
    const recorder = new EventRecorder({ access, component: 'runtime-test', instance: 'pod-0', logger });

    // 12 different messages of one reason: 9 Events of their own, then one combined Event for the rest.
    for (let i = 0; i < 12; i++)
      await recorder.record(similar, 'Warning', 'DeleteFailed', `attempt ${i} failed`);
    // 30 identical events: the spam filter lets 25 through; the 5 others count on the next write.
    for (let i = 0; i < 30; i++) await recorder.record(flooded, 'Warning', 'DeleteFailed', 'still failing');

    const events = await eventsIn(ns);
    const about = (name: string) => events.filter((e) => e.involvedObject.name === name);
    expect(
      about('similar')
        .map((e) => [e.message, e.count])
        .sort(),
    ).toEqual(
      [
        ...Array.from({ length: 9 }, (_, i) => [`attempt ${i} failed`, 1]),
        ['(combined from similar events): attempt 11 failed', 3],
      ].sort(),
    );
    expect(about('flooded').map((e) => [e.message, e.count])).toEqual([['still failing', 25]]);
  });

  it('never throws into the caller', async () => {
    const recorder = new EventRecorder({ access, component: 'runtime-test', instance: 'pod-0', logger });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'no-such-namespace', name: 'x', uid: 'u' };
    await expect(recorder.record(ref, 'Warning', 'DeleteFailed', 'nowhere to go')).resolves.toBeUndefined();
  });
});
