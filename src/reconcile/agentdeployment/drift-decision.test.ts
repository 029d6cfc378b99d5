/** The create/none/patch/wait/stall decision, one row per case, without a cluster or a control plane. */
import { describe, expect, it } from 'vitest';
import type { Deployment, DeploymentCreateRequest } from '../../controlplane/schemas.ts';
import { type DriftInput, driftDecision } from './drift-decision.ts';

const observed: Deployment = {
  id: 'd-1',
  name: 'agent',
  source: 'external_image',
  source_config: {
    custom_url: null,
    listener_id: 'l-1',
    resource_spec: { cpu: 1, cpu_limit: 2, memory_mb: 512, memory_limit_mb: 1024 },
  },
  source_revision_config: { image_uri: 'registry.local/agent:1', repo_ref: null, graph_config_path: null },
  secrets: [{ name: 'TOKEN', value: '********' }],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'r-1',
  active_revision_id: 'r-1',
};

const desired: DeploymentCreateRequest = {
  name: 'agent',
  source: 'external_image',
  source_config: { listener_id: 'l-1', resource_spec: { cpu: 1, memory_mb: 512 } },
  source_revision_config: { image_uri: 'registry.local/agent:1' },
  secrets: [{ name: 'TOKEN', value: 'from-ci' }],
};

const digests = { secrets: 'digest-now', unechoed: 'u' };
const applied = { secretsDigest: 'digest-now', appliedConfigDigest: 'u' };

function input(change: {
  desired?: Partial<DeploymentCreateRequest>;
  observed?: Partial<Deployment> | null;
  applied?: DriftInput['applied'];
}): DriftInput {
  return {
    desired: { ...desired, ...change.desired },
    observed: change.observed === null ? undefined : { ...observed, ...change.observed },
    digests,
    applied: change.applied ?? applied,
  };
}

describe('driftDecision', () => {
  it.each<[string, Parameters<typeof input>[0], Record<string, unknown>]>([
    ['no deployment: create it', { observed: null }, { kind: 'create' }],
    ['everything matches: nothing to send', {}, { kind: 'none', secretsTakenAsCurrent: false }],
    [
      'a changed image: patch it',
      { desired: { source_revision_config: { image_uri: 'registry.local/agent:2' } } },
      { kind: 'patch', changed: ['source_revision_config.image_uri'], createsRevision: true },
    ],
    [
      'a changed immutable field: stall, send nothing',
      { observed: { source_config: { ...observed.source_config, listener_id: 'l-2' } } },
      { kind: 'stall', reason: 'ImmutableFieldChanged' },
    ],
    [
      'adoption (no digest recorded), masked values: taken as current, no patch',
      { applied: {} },
      { kind: 'none', secretsTakenAsCurrent: true },
    ],
    [
      'adoption with another drift: patch that, take the secrets as current',
      { applied: {}, desired: { source_revision_config: { image_uri: 'registry.local/agent:2' } } },
      { kind: 'patch', secretsTakenAsCurrent: true, changed: ['source_revision_config.image_uri'] },
    ],
    [
      'adoption, revealed values that differ: patch the secrets',
      { applied: {}, observed: { secrets: [{ name: 'TOKEN', value: 'old' }] } },
      { kind: 'patch', changed: ['secrets'], secretsTakenAsCurrent: false },
    ],
    [
      'adoption, another secret name: patch the secrets',
      { applied: {}, observed: { secrets: [{ name: 'OTHER', value: '********' }] } },
      { kind: 'patch', changed: ['secrets'] },
    ],
    [
      'a changed secret after adoption: patch it',
      { applied: { ...applied, secretsDigest: 'digest-before' } },
      { kind: 'patch', changed: ['secrets'] },
    ],
    [
      'every secret removed: stall naming them, send nothing',
      { desired: { secrets: [] } },
      { kind: 'stall', reason: 'SecretsRemovalUnsupported' },
    ],
    [
      'every secret removed along with another change: still nothing sent',
      { desired: { secrets: [], source_revision_config: { image_uri: 'registry.local/agent:2' } } },
      { kind: 'stall', reason: 'SecretsRemovalUnsupported' },
    ],
    [
      'the platform is deleting it (someone else asked): wait, send nothing',
      {
        observed: { status: 'AWAITING_DELETE' },
        desired: { source_revision_config: { image_uri: 'registry.local/agent:2' } },
      },
      { kind: 'wait', reason: 'Deleting' },
    ],
    [
      'the last step of a deletion: wait too',
      { observed: { status: 'AWAITING_FINAL_DELETE' } },
      { kind: 'wait', reason: 'Deleting' },
    ],
  ])('%s', (_, change, expected) => {
    expect(driftDecision(input(change))).toMatchObject(expected);
  });

  it('the secrets-removal stall names the secrets the platform keeps, never a value', () => {
    const decision = driftDecision(
      input({
        desired: { secrets: [] },
        observed: {
          secrets: [
            { name: 'A', value: 'plain-a' },
            { name: 'B', value: 'plain-b' },
          ],
        },
      }),
    );
    expect(decision).toMatchObject({ kind: 'stall', reason: 'SecretsRemovalUnsupported' });
    const { message } = decision as { message: string };
    expect(message).toContain('A, B');
    expect(message).not.toContain('plain-');
  });

  it('the deleting wait names the deployment and its state', () => {
    const decision = driftDecision(input({ observed: { status: 'AWAITING_DELETE' } }));
    expect((decision as { message: string }).message).toContain('d-1 is being deleted');
    expect((decision as { message: string }).message).toContain('AWAITING_DELETE');
  });
});
