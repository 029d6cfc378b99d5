import { describe, expect, it } from 'vitest';
import type { ResourceSpec } from '../controlplane/schemas.ts';
import { normaliseResourceSpec, roundToOneDecimal } from './normalise.ts';

describe('roundToOneDecimal', () => {
  it.each([
    [0.1, 0.1],
    [0.14, 0.1],
    [0.16, 0.2],
    [0.25, 0.2], // exact tie: to even, as Python's round
    [0.75, 0.8],
    [1.25, 1.2],
    [0.35, 0.3], // 0.35 is just below 0.35 in binary
    [1.15, 1.1],
    [2, 2],
    [7.96, 8],
  ])('%d -> %d', (input, expected) => {
    expect(roundToOneDecimal(input)).toBe(expected);
  });
});

describe('normaliseResourceSpec', () => {
  const cases: Array<[string, ResourceSpec, ResourceSpec]> = [
    ['empty stays empty', {}, {}],
    ['nulls are dropped', { cpu: null, labels: null }, {}],
    [
      'cpu derives limit, queue cpu and queue limit',
      { cpu: 1 },
      { cpu: 1, cpu_limit: 2, queue_cpu: 1, queue_cpu_limit: 2 },
    ],
    [
      'cpu is rounded before deriving',
      { cpu: 0.25 },
      { cpu: 0.2, cpu_limit: 0.4, queue_cpu: 0.2, queue_cpu_limit: 0.4 },
    ],
    [
      'explicit limits are kept and rounded',
      { cpu: 1.04, cpu_limit: 3.33, queue_cpu: 0.5, queue_cpu_limit: 0.77 },
      { cpu: 1, cpu_limit: 3.3, queue_cpu: 0.5, queue_cpu_limit: 0.8 },
    ],
    [
      'queue cpu set alone derives only its limit',
      { queue_cpu: 0.5 },
      { queue_cpu: 0.5, queue_cpu_limit: 1 },
    ],
    [
      'memory derives limit, queue memory and queue limit',
      { memory_mb: 512 },
      { memory_mb: 512, memory_limit_mb: 1024, queue_memory_mb: 512, queue_memory_limit_mb: 1024 },
    ],
    [
      'explicit queue memory derives its own limit',
      { memory_mb: 512, queue_memory_mb: 256 },
      { memory_mb: 512, memory_limit_mb: 1024, queue_memory_mb: 256, queue_memory_limit_mb: 512 },
    ],
    [
      'scales copy to queue scales',
      { min_scale: 1, max_scale: 3 },
      { min_scale: 1, max_scale: 3, queue_min_scale: 1, queue_max_scale: 3 },
    ],
    ['explicit queue scales win', { min_scale: 1, queue_min_scale: 2 }, { min_scale: 1, queue_min_scale: 2 }],
    [
      'db limits double their bases',
      { db_cpu: 0.5, db_memory_mb: 1000 },
      { db_cpu: 0.5, db_cpu_limit: 1, db_memory_mb: 1000, db_memory_limit_mb: 2000 },
    ],
    [
      'document table: every default the requests imply, cpu rounded first',
      { cpu: 0.55, memory_mb: 1024, min_scale: 1, max_scale: 2 },
      {
        cpu: 0.6,
        cpu_limit: 1.2,
        memory_mb: 1024,
        memory_limit_mb: 2048,
        min_scale: 1,
        max_scale: 2,
        queue_min_scale: 1,
        queue_max_scale: 2,
        queue_cpu: 0.6,
        queue_cpu_limit: 1.2,
        queue_memory_mb: 1024,
        queue_memory_limit_mb: 2048,
      },
    ],
    ['empty lists and maps are the same as absent', { sidecars: [], labels: {}, volumes: [] }, {}],
    [
      'EnvVar.value defaults to the empty string (valueFrom and name-only variables)',
      {
        sidecars: [
          {
            name: 'proxy',
            image: 'proxy:1',
            env: [
              { name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
              { name: 'B' },
              { name: 'C', value: null, valueFrom: null },
              { name: 'D', value: 'x' },
            ],
          },
        ],
        init_containers: [{ name: 'init', image: 'init:1', env: [{ name: 'E' }] }],
      },
      {
        sidecars: [
          {
            name: 'proxy',
            image: 'proxy:1',
            env: [
              { name: 'A', value: '', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
              { name: 'B', value: '' },
              { name: 'C', value: '' },
              { name: 'D', value: 'x' },
            ],
          },
        ],
        init_containers: [{ name: 'init', image: 'init:1', env: [{ name: 'E', value: '' }] }],
      },
    ],
    [
      'other fields pass through',
      { labels: { a: 'b' }, db_storage_gi: 10, service_account_name: 'sa' },
      { labels: { a: 'b' }, db_storage_gi: 10, service_account_name: 'sa' },
    ],
  ];

  it.each(cases)('%s', (_name, input, expected) => {
    expect(normaliseResourceSpec(input)).toStrictEqual(expected);
  });

  it('is idempotent', () => {
    const once = normaliseResourceSpec({ cpu: 0.35, memory_mb: 300, min_scale: 1, db_cpu: 1 });
    expect(normaliseResourceSpec(once)).toStrictEqual(once);
  });

  it('does not modify its input', () => {
    const input: ResourceSpec = { cpu: 1.26 };
    normaliseResourceSpec(input);
    expect(input).toStrictEqual({ cpu: 1.26 });
  });
});
