/** Deletion facts for the chain's and the gates' tables: a deleted object recording d-1, nothing read. */
import type { Deployment } from '../../../controlplane/schemas.ts';
import type { DeletionFacts } from './facts.ts';

export const NOW = new Date('2026-01-01T01:00:00Z');
export const deployment = (id: string, status = 'READY', createdAt = '2026-01-01T00:59:00Z'): Deployment => ({
  id,
  name: 'agent',
  source: 'external_image',
  source_config: { listener_id: 'l-1' },
  source_revision_config: { image_uri: 'registry.local/agent:1' },
  secrets: [],
  created_at: createdAt,
  updated_at: createdAt,
  status,
  latest_revision_id: 'r-1',
  active_revision_id: 'r-1',
});
export const credentials = (over: Partial<Extract<DeletionFacts['credentials'], { ok: true }>> = {}) => ({
  ok: true as const,
  tenant: 'sha256:now',
  claimedBy: () => undefined,
  ...over,
});
export const base: DeletionFacts = {
  name: 'agent',
  hasFinalizer: true,
  policy: 'Delete',
  observeOnly: false,
  deleteTracingProject: false,
  recordedId: 'd-1',
  recordedTenant: 'sha256:now',
  now: NOW,
};
/** Facts with the credentials read. */
export const read = (over: Partial<DeletionFacts>): DeletionFacts => ({
  ...base,
  credentials: credentials(),
  ...over,
});
export const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
