/** The management policy, pure: observe-only or full, and what observe-only reports for each decision. */
import { describe, expect, it } from 'vitest';
import type { DriftDecision } from './drift-decision.ts';
import { deletionPolicyOf, isObserveOnly, observeVerdict, specPathOf } from './management.ts';

describe('management policy', () => {
  it.each<[string, Parameters<typeof deletionPolicyOf>[0], boolean, string]>([
    ['absent: full management', { deletionPolicy: 'Delete' }, false, 'Delete'],
    ['["*"]: full management', { managementPolicies: ['*'], deletionPolicy: 'Orphan' }, false, 'Orphan'],
    [
      '["Observe"]: observe-only, never deletes',
      { managementPolicies: ['Observe'], deletionPolicy: 'Delete' },
      true,
      'Orphan',
    ],
  ])('%s', (_, spec, observeOnly, deletion) => {
    expect(isObserveOnly(spec)).toBe(observeOnly);
    expect(deletionPolicyOf(spec)).toBe(deletion);
  });
});

describe('observeVerdict', () => {
  it.each<[string, DriftDecision, unknown]>([
    ['create: nothing to observe', { kind: 'create', request: {} as never }, { kind: 'notFound' }],
    [
      'none: in sync',
      { kind: 'none', secretsTakenAsCurrent: true },
      { kind: 'observed', drift: [], secretsTakenAsCurrent: true },
    ],
    [
      'patch: the fields as spec paths',
      {
        kind: 'patch',
        patch: {},
        changed: ['source_revision_config.image_uri', 'source_config.resource_spec.cpu_limit', 'secrets'],
        createsRevision: true,
        secretsTakenAsCurrent: false,
      },
      {
        kind: 'observed',
        drift: [
          'spec.sourceRevisionConfig.imageUri',
          'spec.sourceConfig.resourceSpec.cpuLimit',
          'spec.secrets',
        ],
        secretsTakenAsCurrent: false,
      },
    ],
    [
      'an immutable difference is drift too',
      {
        kind: 'stall',
        reason: 'ImmutableFieldChanged',
        message: 'm',
        fields: ['source_config.listener_id'],
      },
      { kind: 'observed', drift: ['spec.sourceConfig.listenerId'], secretsTakenAsCurrent: false },
    ],
    [
      'being deleted',
      { kind: 'wait', reason: 'Deleting', message: 'gone soon' },
      { kind: 'deleting', message: 'gone soon' },
    ],
  ])('%s', (_, decision, verdict) => {
    expect(observeVerdict(decision)).toEqual(verdict);
  });

  it('spec paths', () => {
    expect(specPathOf('source_config.listener_config.k8s_namespace')).toBe(
      'spec.sourceConfig.listenerConfig.k8sNamespace',
    );
  });
});
