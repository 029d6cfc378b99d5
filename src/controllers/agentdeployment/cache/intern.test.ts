import { randomUUID } from 'node:crypto';
import { getHeapSnapshot } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import { Interner } from '../../../lib/interner.ts';
import { internAgentDeployment, internProjection } from './intern.ts';
import { projectAgentDeployment } from './projection.ts';

const REV = 'rev-1111';
const T0 = '2026-11-26T09:00:00.000Z';

const object = (overrides: { status?: object; specName?: string } = {}) =>
  ({
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'AgentDeployment',
    metadata: {
      name: 'payments',
      namespace: 'team',
      uid: 'uid-1',
      creationTimestamp: '2026-11-26T08:00:00Z',
    },
    spec: { source: 'external_image', ...(overrides.specName ? { name: overrides.specName } : {}) },
    status: overrides.status ?? {
      deploymentId: 'dep-1',
      latestRevisionId: REV,
      activeRevisionId: REV,
      lastGoodRevision: REV,
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Deployed', message: 'm', lastTransitionTime: T0 },
        { type: 'Synced', status: 'True', reason: 'Deployed', message: 'm', lastTransitionTime: T0 },
      ],
      history: [{ id: REV, trigger: 'Spec', createdAt: T0, finishedAt: T0 }],
    },
  }) as unknown as AgentDeployment;

describe('internAgentDeployment', () => {
  it("interns what history entries of many objects share: each revision's configuration, trigger and outcome", () => {
    const entry = {
      id: REV,
      image: 'registry.example.com/agent:1',
      resourceSpecDigest: 'sha256:spec',
      trigger: 'Spec',
      status: 'DEPLOYED',
      outcome: 'Deployed',
      createdAt: T0,
    };
    const sizeAfter = (history: object[]) => {
      const interner = new Interner();
      internAgentDeployment(interner, object({ status: { deploymentId: 'dep-1', history } }));
      return interner.size;
    };
    // Five values more in the table; the id and the time are the entry's own.
    expect(sizeAfter([entry]) - sizeAfter([])).toBe(5);
  });
});

/** How many strings of this value the heap holds (a heap snapshot of this process). */
async function copiesOf(value: string): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(chunk as Buffer);
  const snapshot = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const {
    node_fields: fields,
    node_types: [types],
  } = snapshot.snapshot.meta;
  const [type, name] = [fields.indexOf('type'), fields.indexOf('name')];
  let copies = 0;
  for (let i = 0; i < snapshot.nodes.length; i += fields.length)
    if (types[snapshot.nodes[i + type]] === 'string' && snapshot.strings[snapshot.nodes[i + name]] === value)
      copies++;
  return copies;
}

describe('internAgentDeployment: one copy of the latest revision id', () => {
  it('shares the latest revision id with active, last good and the history entry naming it', async () => {
    const rev = `rev-${randomUUID()}`;
    // As a watch event decodes it: each field its own copy of the id.
    const obj = JSON.parse(
      JSON.stringify(
        object({
          status: {
            latestRevisionId: rev,
            activeRevisionId: rev,
            lastGoodRevision: rev,
            history: [{ id: rev }, { id: 'older' }],
          },
        }),
      ),
    ) as AgentDeployment;
    // The test's own `rev`, and the object's four.
    expect(await copiesOf(rev)).toBe(5);
    internAgentDeployment(new Interner(), obj);
    expect(await copiesOf(rev)).toBe(2);
    expect(obj.status).toMatchObject({ latestRevisionId: rev, activeRevisionId: rev, lastGoodRevision: rev });
  });
});

describe('internProjection', () => {
  it("interns a projection's repeated strings, shares no array or object, and freezes nothing", () => {
    const interner = new Interner();
    const withRefs = (name: string) => {
      const obj = object();
      obj.metadata.name = name;
      obj.metadata.finalizers = ['deploy.agents.dev/finalizer'];
      obj.spec.credentialsSecretRef = { name: 'creds' };
      obj.spec.managementPolicies = ['Observe'];
      return obj;
    };
    const [a, b] = [withRefs('a'), withRefs('b')];
    const pa = internProjection(interner, projectAgentDeployment(a));
    const size = interner.size;
    const pb = internProjection(interner, projectAgentDeployment(b));
    // The second adds nothing to the table: every value it interns, the first interned.
    expect(interner.size).toBe(size);
    expect(pb.metadata.finalizers).not.toBe(pa.metadata.finalizers);
    expect(pb.spec).not.toBe(pa.spec);
    expect(pb.spec.credentialsSecretRef).not.toBe(pa.spec.credentialsSecretRef);
    expect(pa.metadata.finalizers).toEqual(['deploy.agents.dev/finalizer']);
    expect(pa.spec).toEqual({ credentialsSecretRef: { name: 'creds' }, managementPolicies: ['Observe'] });
    for (const value of [
      pa.metadata.finalizers,
      pa.spec,
      pa.spec.credentialsSecretRef,
      pa.spec.managementPolicies,
    ])
      expect(Object.isFrozen(value)).toBe(false);
    expect(Object.isFrozen(a.metadata.finalizers)).toBe(false);
  });
});
