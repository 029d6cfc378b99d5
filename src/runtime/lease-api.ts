/**
 * The Lease calls leader election (and shard membership, which also lists and deletes) makes, over kubeRequest so each has a deadline of its own:
 * a renewal that hangs must fail before the renew deadline, not hold the campaign past it.
 */

import type { KubeAccess } from '../kube/access.ts';
import { kubeRequest } from '../kube/request.ts';
import { type WatchEvent, watchStream, watchTimeoutSeconds } from '../kube/watch.ts';

/** A coordination.k8s.io/v1 Lease, as far as leader election reads and writes it (times as MicroTime strings). */
export interface Lease {
  metadata?: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
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

/** The calls shard membership makes beyond the elector's: every member Lease of a group, and removal. */
export interface MemberLeaseApi extends LeaseApi {
  listNamespacedLease(args: { namespace: string; labelSelector: string }): Promise<{ items: Lease[] }>;
  /**
   * Watches the group's Leases from the most recent state (each one first as ADDED) until the server
   * ends the watch (resolves), it fails (rejects) or the signal aborts (resolves).
   */
  watchNamespacedLease(
    args: { namespace: string; labelSelector: string; signal: AbortSignal },
    onEvent: (event: WatchEvent) => void,
  ): Promise<void>;
  /** Deletes only the version given (a precondition), so a Lease renewed since is kept. */
  deleteNamespacedLease(args: { name: string; namespace: string; resourceVersion: string }): Promise<void>;
}

/** Now as a MicroTime (RFC 3339 with six fractional digits), which a Lease's times must be. */
export function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const leasesPath = (namespace: string) =>
  `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;

/** A Lease is small; anything much bigger is not one. */
const MAX_LEASE_BYTES = 1024 * 1024;

export function kubeLeaseApi(access: KubeAccess, options: { deadlineMs: number }): MemberLeaseApi {
  const send = (request: Parameters<typeof kubeRequest>[1], maxBodyBytes = MAX_LEASE_BYTES) =>
    kubeRequest(access, { ...request, deadlineMs: options.deadlineMs, maxBodyBytes, ownConnection: true });
  const call = async (request: Parameters<typeof kubeRequest>[1]) => (await send(request)) as Lease;
  return {
    listNamespacedLease: async ({ namespace, labelSelector }) =>
      // A few hundred members at most: far below the cap.
      (await send(
        { method: 'GET', path: leasesPath(namespace), query: { labelSelector } },
        8 * MAX_LEASE_BYTES,
      )) as {
        items: Lease[];
      },
    watchNamespacedLease: ({ namespace, labelSelector, signal }, onEvent) =>
      watchStream(
        access,
        // No resourceVersion: the most recent state, each Lease as ADDED (a Lease is seen again, not missed).
        {
          path: leasesPath(namespace),
          resourceVersion: '',
          labelSelector,
          timeoutSeconds: watchTimeoutSeconds(),
          signal,
        },
        onEvent,
      ),
    deleteNamespacedLease: async ({ name, namespace, resourceVersion }) => {
      await send({
        method: 'DELETE',
        path: `${leasesPath(namespace)}/${encodeURIComponent(name)}`,
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion } },
      });
    },
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
