/**
 * shareRepeats: which fields take an earlier copy of their value. A string's identity cannot be told
 * from JavaScript, so the holders are proxies that record each field written; the values themselves
 * must come out equal and no field may be added.
 */
import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import { Interner } from '../../lib/interner.ts';
import { internAgentDeployment, internProjection, shareRepeats } from './intern.ts';
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

/** Wraps every object in `obj` in a proxy that records `path.field` for each field written. */
function recorded<T extends object>(obj: T, writes: string[], path = ''): T {
  for (const [key, value] of Object.entries(obj)) {
    if (value && typeof value === 'object')
      (obj as Record<string, unknown>)[key] = recorded(value, writes, `${path}${key}.`);
  }
  return new Proxy(obj, {
    set(target, field, value) {
      writes.push(`${path}${String(field)}`);
      return Reflect.set(target, field, value);
    },
  });
}

describe('shareRepeats', () => {
  it.each([
    {
      name: 'a revision id and a time repeated within one object',
      obj: object(),
      previous: undefined,
      shared: [
        'status.activeRevisionId',
        'status.lastGoodRevision',
        'status.conditions.1.lastTransitionTime',
        'status.conditions.1.message',
        'status.history.0.id',
        'status.history.0.createdAt',
        'status.history.0.finishedAt',
      ],
    },
    {
      name: 'the name as spec.name',
      obj: object({ specName: 'payments', status: {} }),
      previous: undefined,
      shared: ['spec.name'],
    },
    {
      name: 'what the version before held (a projection of it)',
      obj: object({ status: { deploymentId: 'dep-1', latestRevisionId: 'rev-2' } }),
      previous: projectAgentDeployment(object()),
      shared: ['metadata.name', 'metadata.uid', 'metadata.creationTimestamp', 'status.deploymentId'],
    },
    {
      name: 'nothing repeated',
      obj: object({ status: { deploymentId: 'dep-1' } }),
      previous: undefined,
      shared: [],
    },
  ])('$name', ({ obj, previous, shared }) => {
    const expected = structuredClone(obj);
    const writes: string[] = [];
    const out = shareRepeats(recorded(obj, writes), previous);
    expect(writes.sort()).toEqual([...shared].sort());
    // The same values, and no field added where there was none.
    expect(JSON.parse(JSON.stringify(out))).toEqual(expected);
    expect(Object.keys(out.spec)).toEqual(Object.keys(expected.spec));
  });

  it('writes nothing when the object is the cached entry itself (a recache)', () => {
    const writes: string[] = [];
    const entry = recorded(object(), writes);
    shareRepeats(entry, entry);
    expect(writes).toEqual([]);
  });

  it('leaves the version before untouched', () => {
    const previous = object();
    const writes: string[] = [];
    shareRepeats(object(), recorded(previous, writes));
    expect(writes).toEqual([]);
  });
});

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
