import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import { Annotation, FINALIZER } from '../../../api/names.ts';
import { ClaimIndex } from '../../../reconcile/agentdeployment/claim-index.ts';
import { claimOf, deploymentNameOf, visibleClaim } from '../../../reconcile/agentdeployment/claims.ts';
import { recordedDeployments } from '../poll/first-listing.ts';
import { credentialsInUse } from '../program/credentials-in-use.ts';
import {
  type CachedAgentDeployment,
  fullObject,
  isProjection,
  projectAgentDeployment,
} from './projection.ts';
import { SecretIndex } from './secret-index.ts';

/** An object with every kind of field set: what a projection keeps and what it drops. */
const full = (): AgentDeployment =>
  ({
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'AgentDeployment',
    metadata: {
      name: 'agent',
      namespace: 'team',
      uid: 'uid-1',
      generation: 4,
      resourceVersion: '77',
      creationTimestamp: '2026-01-01T00:00:00Z',
      deletionTimestamp: '2026-01-02T00:00:00Z',
      finalizers: [FINALIZER],
      labels: { app: 'agent' },
      annotations: { [Annotation.AdoptDeploymentId]: 'dep-9', [Annotation.PollInterval]: '1m', note: 'x' },
    },
    spec: {
      name: 'agent-deployment',
      source: 'external_image',
      sourceConfig: { listenerId: 'l-1', resourceSpec: { cpu: 1, memoryMb: 512, minScale: 1 } },
      sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
      secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'token' } } }],
      secretsFrom: [{ secretRef: { name: 'bulk-secret' } }],
      credentialsSecretRef: { name: 'creds' },
      managementPolicies: ['Observe'],
      deletionPolicy: 'Orphan',
      progressDeadline: '10m',
    },
    status: {
      deploymentId: 'dep-1',
      credentialsDigest: 'digest-1',
      createPendingSince: '2026-01-01T00:00:01Z',
      latestRevisionId: 'rev-2',
      activeRevisionId: 'rev-1',
      observedGeneration: 3,
      imageVersion: 'registry.example.com/agent:1',
      history: [{ revisionId: 'rev-1' }],
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Ready', message: 'ok', lastTransitionTime: 'x' },
      ],
    },
  }) as unknown as AgentDeployment;

describe('projectAgentDeployment', () => {
  const projected = projectAgentDeployment(full());

  it.each([
    // claims
    { path: ['metadata', 'name'], reader: 'claims, keys', kept: 'agent' },
    { path: ['metadata', 'namespace'], reader: 'claims, keys, credentials', kept: 'team' },
    { path: ['metadata', 'uid'], reader: 'claims', kept: 'uid-1' },
    { path: ['metadata', 'creationTimestamp'], reader: 'claims (tie-break)', kept: '2026-01-01T00:00:00Z' },
    {
      path: ['metadata', 'deletionTimestamp'],
      reader: 'claims, credentials in use, first listing',
      kept: '2026-01-02T00:00:00Z',
    },
    { path: ['metadata', 'annotations', Annotation.AdoptDeploymentId], reader: 'claims', kept: 'dep-9' },
    { path: ['spec', 'name'], reader: 'claims (the deployment name)', kept: 'agent-deployment' },
    {
      path: ['spec', 'managementPolicies'],
      reader: 'claims (observe-only claims no name)',
      kept: ['Observe'],
    },
    { path: ['status', 'deploymentId'], reader: 'claims, first listing', kept: 'dep-1' },
    { path: ['status', 'credentialsDigest'], reader: 'claims', kept: 'digest-1' },
    { path: ['status', 'createPendingSince'], reader: 'claims', kept: '2026-01-01T00:00:01Z' },
    // credentials and their Secret's in-use finalizer
    { path: ['spec', 'credentialsSecretRef', 'name'], reader: 'credentials', kept: 'creds' },
    { path: ['metadata', 'finalizers'], reader: 'credentials in use', kept: [FINALIZER] },
    // the first listing of keys gained; an update's wake-ups
    { path: ['status', 'latestRevisionId'], reader: 'first listing', kept: 'rev-2' },
    { path: ['metadata', 'generation'], reader: 'update wake-up', kept: 4 },
    { path: ['metadata', 'resourceVersion'], reader: 'versions', kept: '77' },
    // nothing else
    { path: ['apiVersion'], reader: 'none', kept: undefined },
    { path: ['kind'], reader: 'none', kept: undefined },
    { path: ['metadata', 'labels'], reader: 'none', kept: undefined },
    { path: ['metadata', 'annotations', Annotation.PollInterval], reader: 'none', kept: undefined },
    { path: ['metadata', 'annotations', 'note'], reader: 'none', kept: undefined },
    { path: ['spec', 'source'], reader: 'none', kept: undefined },
    { path: ['spec', 'sourceConfig'], reader: 'none', kept: undefined },
    { path: ['spec', 'sourceRevisionConfig'], reader: 'none', kept: undefined },
    { path: ['spec', 'secrets'], reader: 'none', kept: undefined },
    { path: ['spec', 'secretsFrom'], reader: 'none', kept: undefined },
    { path: ['spec', 'deletionPolicy'], reader: 'none', kept: undefined },
    { path: ['spec', 'progressDeadline'], reader: 'none', kept: undefined },
    { path: ['status', 'activeRevisionId'], reader: 'none', kept: undefined },
    { path: ['status', 'observedGeneration'], reader: 'none', kept: undefined },
    { path: ['status', 'imageVersion'], reader: 'none', kept: undefined },
    { path: ['status', 'history'], reader: 'none', kept: undefined },
    { path: ['status', 'conditions'], reader: 'none', kept: undefined },
  ])('$path ($reader)', ({ path, kept }) => {
    const value = path.reduce<unknown>(
      (v, key) => (v as Record<string, unknown> | undefined)?.[key],
      projected,
    );
    expect(value).toEqual(kept);
  });

  it('holds nothing the table does not name (no key left undefined either)', () => {
    expect(Object.keys(projected).sort()).toEqual(['metadata', 'projected', 'spec', 'status']);
    expect(Object.keys(projected.metadata).sort()).toEqual(
      [
        'annotations',
        'creationTimestamp',
        'deletionTimestamp',
        'finalizers',
        'generation',
        'name',
        'namespace',
        'resourceVersion',
        'uid',
      ].sort(),
    );
    expect(Object.keys(projected.spec).sort()).toEqual([
      'credentialsSecretRef',
      'managementPolicies',
      'name',
    ]);
    const bare = projectAgentDeployment({
      ...full(),
      metadata: { name: 'bare', namespace: 'team' },
      spec: { source: 'external_image' },
      status: undefined,
    } as unknown as AgentDeployment);
    expect(bare).toEqual({ projected: true, metadata: { name: 'bare', namespace: 'team' }, spec: {} });
  });

  it('is told from the object, and a projection of a projection is itself', () => {
    const obj = full();
    expect(isProjection(obj)).toBe(false);
    expect(isProjection(projected)).toBe(true);
    expect(fullObject(obj)).toBe(obj);
    expect(fullObject(projected)).toBeUndefined();
    expect(projectAgentDeployment(projected)).toBe(projected);
  });
});

describe('every reader of other objects reads the same of the projection as of the object', () => {
  const objects: AgentDeployment[] = [
    full(),
    {
      ...full(),
      metadata: { ...full().metadata, name: 'plain', uid: 'uid-2', deletionTimestamp: undefined },
    },
    {
      ...full(),
      spec: { ...full().spec, managementPolicies: undefined },
      status: { createPendingSince: 'x' },
    },
  ] as AgentDeployment[];
  const both = objects.map((obj) => ({ obj, projected: projectAgentDeployment(obj) }));
  const identity = () => ({ tenant: 'digest-1', identity: 'key-1' });
  const query = { tenant: 'digest-1', identity: 'key-1', tenanted: true };

  it.each(both.map((b, i) => ({ ...b, i })))('object $i: claims, name, credentials', ({ obj, projected }) => {
    expect(claimOf(projected, 't')).toEqual(claimOf(obj, 't'));
    expect(visibleClaim(projected, identity, query)).toEqual(visibleClaim(obj, identity, query));
    expect(deploymentNameOf(projected)).toBe(deploymentNameOf(obj));
    expect(credentialsInUse([projected])).toEqual(credentialsInUse([obj]));
    const credentials = () => ({ baseUrl: 'https://cp.example.com', apiKey: 'k' });
    expect(recordedDeployments([projected], credentials)).toEqual(recordedDeployments([obj], credentials));
  });

  it('the claim index answers the same', () => {
    const fromObjects = ClaimIndex.of<CachedAgentDeployment>(
      both.map((b) => b.obj),
      identity,
    );
    const fromProjections = ClaimIndex.of<CachedAgentDeployment>(
      both.map((b) => b.projected),
      identity,
    );
    const q = { ...query, name: 'agent-deployment', ids: ['dep-1', 'dep-9'] };
    expect(fromProjections.claims(q)).toEqual(fromObjects.claims(q));
    expect(fromProjections.claims(q)).not.toEqual([]);
  });

  it("the Secret index keeps only the projection's credentials Secret (its env Secrets' values are not held)", () => {
    const index = new SecretIndex({ firstReader: () => {}, lastReaderGone: () => {} });
    index.set(projectAgentDeployment(full()));
    expect(index.isRead('team/creds')).toBe(true);
    expect(index.isRead('team/env-secret')).toBe(false);
    expect(index.isRead('team/bulk-secret')).toBe(false);
    index.set(full());
    expect(index.isRead('team/env-secret')).toBe(true);
  });
});
