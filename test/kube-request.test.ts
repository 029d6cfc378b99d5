// kubeRequest against the run's real API server: its calls share connections instead of opening one each.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { kubeRequest } from '../src/kube/request.ts';
import { createTestNamespace, kubeAccessFromProvided } from './support/kube.ts';

describe('kubeRequest', () => {
  it('reuses its connections: 30 writes open at most a few, not one each', async () => {
    const access = kubeAccessFromProvided();
    const ns = await createTestNamespace('kubehttp');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await kubeRequest(access, { method: 'POST', path, body: { metadata: { name: 'counter' } } });
    let connects = 0;
    const onConnect = () => {
      connects += 1;
    };
    subscribe('undici:client:connected', onConnect);
    try {
      for (let i = 0; i < 30; i++) {
        await kubeRequest(access, {
          method: 'PATCH',
          path: `${path}/counter`,
          body: { data: { i: String(i) } },
          contentType: 'application/merge-patch+json',
        });
      }
    } finally {
      unsubscribe('undici:client:connected', onConnect);
    }
    expect(connects).toBeLessThanOrEqual(2);
  });
});
