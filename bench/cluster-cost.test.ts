import { describe, expect, it } from 'vitest';
import { type ClusterSample, clusterCost, writeCountsFromMetrics } from './cluster-cost.ts';

const total = (verb: string, resource: string, subresource: string, value: number, code = '200') =>
  `apiserver_request_total{code="${code}",component="apiserver",dry_run="",group="",resource="${resource}",scope="resource",subresource="${subresource}",verb="${verb}",version="v1"} ${value}`;
const bodySum = (verb: string, resource: string, value: number) =>
  `apiserver_request_body_size_bytes_sum{group="",resource="${resource}",verb="${verb}"} ${value}`;

describe('writeCountsFromMetrics', () => {
  it.each([
    {
      name: 'writes by verb, resource and subresource; codes summed; reads left out',
      text: [
        '# HELP apiserver_request_total [STABLE] Counter of apiserver requests',
        total('PATCH', 'agentdeployments', 'status', 3),
        total('PATCH', 'agentdeployments', 'status', 1, '409'),
        total('PATCH', 'agentdeployments', '', 2),
        total('POST', 'events', '', 5, '201'),
        total('GET', 'agentdeployments', '', 40),
        total('WATCH', 'agentdeployments', '', 1),
        'apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/readyz",verb="GET",version=""} 2',
      ].join('\n'),
      want: {
        requests: { 'PATCH agentdeployments/status': 4, 'PATCH agentdeployments': 2, 'POST events': 5 },
        bytes: {},
      },
    },
    {
      name: 'body bytes by verb and resource (the histogram has no subresource)',
      text: [
        bodySum('patch', 'agentdeployments', 1200),
        bodySum('create', 'events', 900),
        'apiserver_request_body_size_bytes_count{group="",resource="events",verb="create"} 3',
        'apiserver_request_body_size_bytes_bucket{group="",resource="events",verb="create",le="50000"} 3',
      ].join('\n'),
      want: { requests: {}, bytes: { 'patch agentdeployments': 1200, 'create events': 900 } },
    },
  ])('$name', ({ text, want }) => {
    expect(writeCountsFromMetrics(text)).toEqual(want);
  });
});

const sample = (
  apiServerCpuSeconds: number,
  requests: Record<string, number>,
  bytes: Record<string, number>,
): ClusterSample => ({
  apiServerCpuSeconds,
  etcdCpuSeconds: apiServerCpuSeconds / 4,
  writes: { requests, bytes },
});

describe('clusterCost', () => {
  it.each([
    {
      name: 'per object: CPU, and the writes made between the samples',
      before: sample(10, { 'PATCH agentdeployments/status': 7 }, { 'patch agentdeployments': 700 }),
      after: sample(
        12,
        { 'PATCH agentdeployments/status': 207, 'POST events': 100 },
        { 'patch agentdeployments': 40_700, 'create events': 50_000 },
      ),
      n: 100,
      want: {
        apiServerCpuMsPerObject: 20,
        etcdCpuMsPerObject: 5,
        writesPerObjectByOperation: { 'PATCH agentdeployments/status': 2, 'POST events': 1 },
        writesPerObject: 3,
        writeBytesPerObjectByOperation: { 'patch agentdeployments': 400, 'create events': 500 },
        writeBytesPerObject: 900,
      },
    },
    {
      name: "the bench's creates and the API server's Lease renewals are not the controller's",
      before: sample(0, { 'PUT leases': 3 }, { 'update leases': 900 }),
      after: sample(
        1,
        { 'PUT leases': 5, 'POST agentdeployments': 10, 'PATCH agentdeployments': 10 },
        { 'update leases': 1500, 'create agentdeployments': 5000, 'patch agentdeployments': 1000 },
      ),
      n: 10,
      want: {
        apiServerCpuMsPerObject: 100,
        etcdCpuMsPerObject: 25,
        writesPerObjectByOperation: { 'PATCH agentdeployments': 1 },
        writesPerObject: 1,
        writeBytesPerObjectByOperation: { 'patch agentdeployments': 100 },
        writeBytesPerObject: 100,
      },
    },
  ])('$name', ({ before, after, n, want }) => {
    expect(clusterCost(before, after, n)).toEqual(want);
  });
});
