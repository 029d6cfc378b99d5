import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../controlplane/schemas.ts';
import { sameObservation } from './observation.ts';

const deployment: Deployment = {
  id: 'd-1',
  name: 'agent',
  source: 'external_image',
  source_config: { listener_id: 'l-1' } as Deployment['source_config'],
  source_revision_config: {
    image_uri: 'registry.example.com/agent:1',
  } as Deployment['source_revision_config'],
  secrets: [{ name: 'A', value: '***' }] as Deployment['secrets'],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'r-1',
  active_revision_id: null,
};

describe('sameObservation', () => {
  it.each<[string, Partial<Deployment>, boolean]>([
    [
      'the revision now active, a later update time and status',
      { active_revision_id: 'r-1', updated_at: '2026-01-02T00:00:00Z', status: 'READY' },
      true,
    ],
    [
      'another image',
      {
        source_revision_config: {
          image_uri: 'registry.example.com/agent:2',
        } as Deployment['source_revision_config'],
      },
      false,
    ],
    ['another latest revision', { latest_revision_id: 'r-2' }, false],
    [
      'another source configuration',
      { source_config: { listener_id: 'l-2' } as Deployment['source_config'] },
      false,
    ],
    ['other secrets', { secrets: [] }, false],
    [
      'a field the document does not name, added to the source configuration',
      { source_config: { listener_id: 'l-1', added_later: 1 } as Deployment['source_config'] },
      true,
    ],
    ['another deployment', { id: 'd-2' }, false],
  ])('%s: %s', (_, change, same) => {
    expect(sameObservation(deployment, { ...deployment, ...change })).toBe(same);
  });
});
