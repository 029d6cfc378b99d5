/**
 * The three Lease calls leader election makes, over kubeRequest so each has a deadline of its own:
 * a renewal that hangs must fail before the renew deadline, not hold the campaign past it.
 */

import type { KubeAccess } from '../kube/access.ts';
import { kubeRequest } from '../kube/request.ts';

/** A coordination.k8s.io/v1 Lease, as far as leader election reads and writes it (times as MicroTime strings). */
export interface Lease {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** The three Lease calls the elector makes (tests may fake them). */
export interface LeaseApi {
  readNamespacedLease(args: { name: string; namespace: string }): Promise<Lease>;
  createNamespacedLease(args: { namespace: string; body: Lease }): Promise<Lease>;
  replaceNamespacedLease(args: { name: string; namespace: string; body: Lease }): Promise<Lease>;
}

/** Now as a MicroTime (RFC 3339 with six fractional digits), which a Lease's times must be. */
export function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const leasesPath = (namespace: string) =>
  `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;

/** A Lease is small; anything much bigger is not one. */
const MAX_LEASE_BYTES = 1024 * 1024;

export function kubeLeaseApi(access: KubeAccess, options: { deadlineMs: number }): LeaseApi {
  const call = async (request: Parameters<typeof kubeRequest>[1]) =>
    (await kubeRequest(access, {
      ...request,
      deadlineMs: options.deadlineMs,
      maxBodyBytes: MAX_LEASE_BYTES,
      ownConnection: true,
    })) as Lease;
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
  };
}
