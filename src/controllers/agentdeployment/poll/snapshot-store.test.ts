import { describe, expect, it } from 'vitest';
import { Deployment } from '../../../controlplane/schemas.ts';
import { knownFields } from '../../../lib/known-fields.ts';
import { configurationDigest } from './snapshot-store.ts';

const deployment = Deployment.parse({
  id: 'd-1',
  name: 'agent',
  source: 'external_image',
  source_config: { deployment_type: 'dev', resource_spec: { min_scale: 1 } },
  source_revision_config: { image_uri: 'registry.example.com/agent:1' },
  secrets: [{ name: 'KEY', value: 'v' }],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'r-1',
  active_revision_id: 'r-1',
});

describe('configurationDigest', () => {
  // The snapshot keeps a deployment reduced to the fields the document names (knownFields), and a pass
  // may find it in sync from that snapshot or from a read: the two must digest alike, or every poll
  // reads a deployment the platform added a field to as unlike the spec.
  it.each<[string, Deployment]>([
    [
      'inside source_config',
      { ...deployment, source_config: { ...deployment.source_config, added_later: 1 } },
    ],
    [
      'inside the resource spec',
      {
        ...deployment,
        source_config: { ...deployment.source_config, resource_spec: { min_scale: 1, added_later: 1 } },
      },
    ],
    [
      'inside source_revision_config',
      { ...deployment, source_revision_config: { ...deployment.source_revision_config, added_later: 1 } },
    ],
    ['in a secret', { ...deployment, secrets: [{ name: 'KEY', value: 'v', added_later: 1 }] }],
  ])('a field the document does not name, %s, digests as the snapshot kept it', (_where, read) => {
    expect(configurationDigest(read)).toBe(configurationDigest(knownFields(Deployment, read)));
  });

  it('a field the spec sets still tells', () => {
    const other = { ...deployment, source_revision_config: { image_uri: 'registry.example.com/agent:2' } };
    expect(configurationDigest(other)).not.toBe(configurationDigest(deployment));
  });
});
