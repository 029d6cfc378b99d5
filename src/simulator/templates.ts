/** Sandbox templates: seeding (ids and timestamps filled in), the default examples, listing. */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { SandboxTemplate } from '../controlplane/template-schemas.ts';

/** A template as a test or a file seeds it: id and timestamps are generated when absent. */
export const SandboxTemplateSeedSchema = SandboxTemplate.extend({ id: z.string().optional() });
export type SandboxTemplateSeed = z.infer<typeof SandboxTemplateSeedSchema>;

/** A uuid-shaped id derived from a name, so seeded templates keep their ids across restarts. */
export function stableUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function seedTemplates(seeds: readonly SandboxTemplateSeed[], at = Date.now()): SandboxTemplate[] {
  return seeds.map((seed, index) => {
    // Spread the generated timestamps one second apart so sorting by created_at is meaningful.
    const stamp = new Date(at - (seeds.length - index) * 1000).toISOString();
    return {
      ...seed,
      id: seed.id ?? stableUuid(`template:${seed.name}`),
      created_at: seed.created_at ?? stamp,
      updated_at: seed.updated_at ?? seed.created_at ?? stamp,
    };
  });
}

const REGISTRY_ID = stableUuid('registry:sim-registry');

export const EXAMPLE_TEMPLATES: SandboxTemplateSeed[] = [
  {
    name: 'python-3.12',
    image: 'docker.io/library/python:3.12-slim',
    resources: { cpu: '500m', memory: '512Mi', storage: '2Gi' },
    volume_mounts: [{ volume_name: 'workspace', mount_path: '/workspace' }],
    proxy_config: { rules: [], no_proxy: ['localhost'] },
    registry_name: 'sim-registry',
    registry_id: REGISTRY_ID,
  },
  {
    name: 'node-24',
    image: 'docker.io/library/node:24-slim',
    resources: { cpu: '1000m', memory: '1024Mi', storage: '4Gi' },
    volume_mounts: [],
    proxy_config: {
      rules: [
        {
          name: 'github-api',
          match_hosts: ['api.github.com'],
          inject_headers: { 'X-Sandbox': 'node-24' },
          match_paths: ['/repos/*'],
          enabled: true,
        },
      ],
      no_proxy: [],
    },
    registry_name: 'sim-registry',
    registry_id: REGISTRY_ID,
  },
  {
    name: 'browser-chromium',
    image: 'ghcr.io/example/chromium-sandbox:1.4.0',
    resources: { cpu: '2000m', memory: '4096Mi', storage: '8Gi' },
    volume_mounts: [{ volume_name: 'downloads', mount_path: '/home/sandbox/Downloads' }],
    proxy_config: { rules: [], no_proxy: [] },
    registry_name: 'sim-registry',
    registry_id: REGISTRY_ID,
  },
];

export const TEMPLATE_SORT_FIELDS = ['name', 'image', 'created_at'] as const;
export type TemplateSortField = (typeof TEMPLATE_SORT_FIELDS)[number];
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

export function filterAndSortTemplates(
  templates: readonly SandboxTemplate[],
  options: { nameContains?: string; sortBy: TemplateSortField; direction: SortDirection },
): SandboxTemplate[] {
  const needle = options.nameContains?.toLowerCase();
  const kept = needle ? templates.filter((t) => t.name.toLowerCase().includes(needle)) : [...templates];
  const sign = options.direction === 'asc' ? 1 : -1;
  return kept.sort((a, b) => {
    const left = String(a[options.sortBy] ?? '');
    const right = String(b[options.sortBy] ?? '');
    return (left < right ? -1 : left > right ? 1 : 0) * sign || (a.id < b.id ? -1 : 1);
  });
}

/** The template examples/sandboxtemplate.yaml names, as the example states it (make run, the Argo CD test). */
export const EXAMPLES_DIR_TEMPLATE: SandboxTemplateSeed = {
  name: 'python-data',
  image: 'python:3.12-slim',
  resources: { cpu: '500m', memory: '1Gi', storage: '10Gi' },
  volume_mounts: [{ volume_name: 'datasets', mount_path: '/data' }],
  proxy_config: {
    rules: [
      {
        name: 'github-api',
        match_hosts: ['api.github.com'],
        match_paths: ['/repos/*'],
        enabled: true,
        inject_headers: { Authorization: 'Bearer example-not-a-real-token' },
      },
    ],
    no_proxy: ['localhost', '127.0.0.1'],
  },
  registry_name: 'default',
};
