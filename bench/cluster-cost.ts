/**
 * What the cluster pays for a convergence: the CPU of the local kube-apiserver and etcd (from /proc), and
 * the Kubernetes writes and their request bytes, from the API server's own metrics
 * (`apiserver_request_total`, `apiserver_request_body_size_bytes`), read before and after.
 */
import type { KubeAccess } from '../src/kube/access.ts';
import { kubeRequestText } from '../src/kube/request.ts';
import { cpuSeconds } from './process-memory.ts';

/** Write requests and their body bytes, by operation ("PATCH agentdeployments/status", ...). */
export interface WriteCounts {
  requests: Record<string, number>;
  /** By verb and resource only: the body size histogram has no subresource label ("patch agentdeployments"). */
  bytes: Record<string, number>;
}

export interface ClusterSample {
  apiServerCpuSeconds: number;
  etcdCpuSeconds: number;
  writes: WriteCounts;
}

export interface ClusterCost {
  /** CPU over the convergence, in ms per converged object. */
  apiServerCpuMsPerObject: number;
  etcdCpuMsPerObject: number;
  /** The controller's writes per converged object, by operation, and in all. */
  writesPerObjectByOperation: Record<string, number>;
  writesPerObject: number;
  /** Their request body bytes per converged object, by verb and resource, and in all. */
  writeBytesPerObjectByOperation: Record<string, number>;
  writeBytesPerObject: number;
}

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY', 'DELETECOLLECTION']);

/** Label values of one sample line: `name{a="x",b="y"} 3` → { a: 'x', b: 'y' }. */
function labelsOf(line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const inner = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'));
  for (const [, key, value] of inner.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
    labels[key as string] = value as string;
  return labels;
}

const sampleValue = (line: string) => Number(line.slice(line.lastIndexOf(' ') + 1));

/** The write requests and body bytes an API server's /metrics text records so far. */
export function writeCountsFromMetrics(text: string): WriteCounts {
  const requests: Record<string, number> = {};
  const bytes: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (line.startsWith('apiserver_request_total{')) {
      const l = labelsOf(line);
      if (!WRITE_VERBS.has(l.verb ?? '') || !l.resource) continue;
      const op = `${l.verb} ${l.resource}${l.subresource ? `/${l.subresource}` : ''}`;
      requests[op] = (requests[op] ?? 0) + sampleValue(line);
    } else if (line.startsWith('apiserver_request_body_size_bytes_sum{')) {
      const l = labelsOf(line);
      const op = `${l.verb} ${l.resource}`;
      bytes[op] = (bytes[op] ?? 0) + sampleValue(line);
    }
  }
  return { requests, bytes };
}

/**
 * What the benchmark's own requests and the API server's own upkeep add, left out of the controller's
 * cost: the bench creates the N objects; the API server renews its identity Lease every 10 s (the single
 * run's controller holds no Lease: --leader-elect=false, no sharding).
 */
export const NOT_THE_CONTROLLERS = new Set([
  'POST agentdeployments',
  'create agentdeployments',
  'PUT leases',
  'update leases',
  'PATCH leases',
  'patch leases',
  'POST leases',
  'create leases',
]);

function perObject(
  before: Record<string, number>,
  after: Record<string, number>,
  n: number,
): { byOperation: Record<string, number>; total: number } {
  const byOperation: Record<string, number> = {};
  let total = 0;
  for (const [op, value] of Object.entries(after)) {
    const delta = value - (before[op] ?? 0);
    if (delta <= 0 || NOT_THE_CONTROLLERS.has(op)) continue;
    byOperation[op] = delta / n;
    total += delta;
  }
  return { byOperation, total: total / n };
}

/** The cost of converging `n` objects between two samples. */
export function clusterCost(before: ClusterSample, after: ClusterSample, n: number): ClusterCost {
  const writes = perObject(before.writes.requests, after.writes.requests, n);
  const bytes = perObject(before.writes.bytes, after.writes.bytes, n);
  return {
    apiServerCpuMsPerObject: ((after.apiServerCpuSeconds - before.apiServerCpuSeconds) * 1000) / n,
    etcdCpuMsPerObject: ((after.etcdCpuSeconds - before.etcdCpuSeconds) * 1000) / n,
    writesPerObjectByOperation: writes.byOperation,
    writesPerObject: writes.total,
    writeBytesPerObjectByOperation: bytes.byOperation,
    writeBytesPerObject: bytes.total,
  };
}

export async function sampleCluster(
  access: KubeAccess,
  pids: { apiServer: number; etcd: number },
): Promise<ClusterSample> {
  const [apiServerCpuSeconds, etcdCpuSeconds, metrics] = await Promise.all([
    cpuSeconds(pids.apiServer),
    cpuSeconds(pids.etcd),
    kubeRequestText(access, { method: 'GET', path: '/metrics' }),
  ]);
  return { apiServerCpuSeconds, etcdCpuSeconds, writes: writeCountsFromMetrics(metrics) };
}
