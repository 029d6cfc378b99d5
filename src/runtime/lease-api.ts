/**
 * The three Lease calls leader election makes, over kubeRequest so each has a deadline of its own:
 * a renewal that hangs must fail before the renew deadline, not hold the campaign past it.
 */
import type { KubeConfig, V1Lease } from '@kubernetes/client-node';
import { kubeRequest } from './kubehttp.ts';
import type { LeaseApi } from './leader.ts';

const leasesPath = (namespace: string) =>
  `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;

/** A Lease is small; anything much bigger is not one. */
const MAX_LEASE_BYTES = 1024 * 1024;

export function kubeLeaseApi(kc: KubeConfig, options: { deadlineMs: number }): LeaseApi {
  const call = async (request: Parameters<typeof kubeRequest>[1]) =>
    (await kubeRequest(kc, {
      ...request,
      deadlineMs: options.deadlineMs,
      maxBodyBytes: MAX_LEASE_BYTES,
      ownConnection: true,
    })) as V1Lease;
  return {
    readNamespacedLease: ({ name, namespace }) =>
      call({ method: 'GET', path: `${leasesPath(namespace)}/${encodeURIComponent(name)}` }),
    createNamespacedLease: ({ namespace, body }) =>
      call({
        method: 'POST',
        path: leasesPath(namespace),
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...body },
      }),
    replaceNamespacedLease: ({ name, namespace, body }) =>
      call({
        method: 'PUT',
        path: `${leasesPath(namespace)}/${encodeURIComponent(name)}`,
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...body },
      }),
  } as LeaseApi;
}
