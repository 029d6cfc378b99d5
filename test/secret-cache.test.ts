// The Secrets cache and object slimming against the run's real API server: Secrets are listed and watched
// as metadata only, only referenced Secrets keep their values in memory (read ahead), others are read on
// demand, and no cached object keeps managedFields or kubectl's last-applied copy.
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { KubeAccess } from '../src/kube/access.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { startInformer } from '../src/runtime/informer.ts';
import { createSecretCache, type SecretCache } from '../src/runtime/secret-cache.ts';
import { createTestNamespace, kubeAccessFromProvided, kubeConfigFromProvided } from './support/kube.ts';

const logger = pino({ level: 'silent' });
const b64 = (s: string) => Buffer.from(s).toString('base64');
let kc: KubeConfig;
let access: KubeAccess;
let core: CoreV1Api;
const stops: Array<() => Promise<void>> = [];

beforeAll(() => {
  kc = kubeConfigFromProvided();
  access = kubeAccessFromProvided();
  core = kc.makeApiClient(CoreV1Api);
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function cacheFor(namespace: string, referenced: Set<string>, changed: string[] = []): SecretCache {
  const cache = createSecretCache({
    access,
    namespaces: [namespace],
    logger,
    isReferenced: (key) => referenced.has(key),
    onChange: (key) => changed.push(key),
  });
  stops.push(() => cache.stop());
  return cache;
}

const mergePatch = (path: string, body: unknown) =>
  kubeRequest(access, { method: 'PATCH', path, body, contentType: 'application/merge-patch+json' });

const putSecret = (namespace: string, name: string, value: string) =>
  core.createNamespacedSecret({ namespace, body: { metadata: { name }, data: { value: b64(value) } } });

describe('the Secrets cache', () => {
  it('keeps values only of referenced Secrets, and reads the others on demand', async () => {
    const ns = await createTestNamespace('secret-cache');
    await putSecret(ns, 'used', 'u');
    await putSecret(ns, 'helm-release-blob', 'x'.repeat(100_000));
    const cache = cacheFor(ns, new Set([`${ns}/used`]));
    cache.start();
    await until(() => cache.hasSynced(), 'sync');
    expect(cache.size()).toEqual({ secrets: 2, withValues: 1 });
    // Listed and watched as metadata: no value of any Secret is in the cached objects, referenced or not.
    for (const name of ['used', 'helm-release-blob']) {
      const cached = cache.get(ns, name);
      expect(cached).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name } });
      expect(cached).not.toHaveProperty('data');
    }
    expect(await cache.read(ns, 'used')).toEqual({ value: b64('u') });
    expect(cache.peek(ns, 'used')).toEqual({ value: b64('u') });
    // Not referenced when it arrived: fetched when read, then held for that resourceVersion only.
    expect(cache.peek(ns, 'helm-release-blob')).toBeUndefined();
    expect(await cache.read(ns, 'helm-release-blob')).toEqual({ value: b64('x'.repeat(100_000)) });
    expect(cache.peek(ns, 'helm-release-blob')).toEqual({ value: b64('x'.repeat(100_000)) });
    expect(await cache.read(ns, 'missing')).toBeUndefined();
  });

  it('a Secret that changes is reported, and the next read sees the new value', async () => {
    const ns = await createTestNamespace('secret-cache');
    await putSecret(ns, 'late', 'v1');
    const changed: string[] = [];
    const cache = cacheFor(ns, new Set(), changed);
    cache.start();
    await until(() => cache.hasSynced(), 'sync');
    expect(await cache.read(ns, 'late')).toEqual({ value: b64('v1') });
    await mergePatch(`/api/v1/namespaces/${ns}/secrets/late`, { data: { value: b64('v2') } });
    await until(() => changed.filter((k) => k === `${ns}/late`).length >= 2, 'the change event');
    expect(await cache.read(ns, 'late')).toEqual({ value: b64('v2') });
  });

  it('releasing the last reference drops the values from memory', async () => {
    const ns = await createTestNamespace('secret-cache');
    await putSecret(ns, 'used', 'u');
    const referenced = new Set([`${ns}/used`]);
    const cache = cacheFor(ns, referenced);
    cache.start();
    await until(() => cache.hasSynced(), 'sync');
    expect(cache.size().withValues).toBe(1);
    referenced.clear();
    cache.release(`${ns}/used`);
    expect(cache.size().withValues).toBe(0);
    expect(await cache.read(ns, 'used')).toEqual({ value: b64('u') });
  });
});

describe('informer slimming', () => {
  it('cached objects carry neither managedFields nor the last-applied annotation', async () => {
    const ns = await createTestNamespace('slim');
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: 'applied',
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"big":true}', keep: 'me' },
        },
        data: { a: '1' },
      },
    });
    const informer = startInformer<V1ConfigMap>({
      access,
      path: '/api/v1/configmaps',
      namespaces: [ns],
      logger,
    });
    stops.push(() => informer.stop());
    await until(() => informer.hasSynced(), 'sync');
    await mergePatch(`/api/v1/namespaces/${ns}/configmaps/applied`, { data: { a: '2' } });
    await until(() => informer.get(ns, 'applied')?.data?.a === '2', 'the update');
    const cached = informer.get(ns, 'applied');
    expect(cached?.metadata?.managedFields).toBeUndefined();
    expect(cached?.metadata?.annotations).toEqual({ keep: 'me' });
  });
});
