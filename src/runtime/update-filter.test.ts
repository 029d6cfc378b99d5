import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { shouldEnqueueUpdate } from './update-filter.ts';

type Meta = NonNullable<KubernetesObject['metadata']>;
type Obj = KubernetesObject & { metadata: Meta; spec: unknown; status: unknown };

const base: Obj = {
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'AgentDeployment',
  metadata: {
    name: 'a',
    namespace: 'ns',
    generation: 1,
    resourceVersion: '10',
    labels: { app: 'x' },
    annotations: { note: 'y' },
    finalizers: ['deploy.agents.dev/finalizer'],
    managedFields: [{ manager: 'kubectl' }],
  },
  spec: { source: 'repo_host' },
  status: { observedGeneration: 1 },
};

function changed(metadata: Partial<Meta> & Record<string, unknown>, rest: Partial<Obj> = {}): Obj {
  return { ...structuredClone(base), ...rest, metadata: { ...structuredClone(base.metadata), ...metadata } };
}

describe('shouldEnqueueUpdate', () => {
  it.each<{ name: string; updated: Obj; expected: boolean }>([
    { name: 'generation bump', updated: changed({ generation: 2 }), expected: true },
    { name: 'label added', updated: changed({ labels: { app: 'x', b: 'c' } }), expected: true },
    { name: 'label removed', updated: changed({ labels: {} }), expected: true },
    { name: 'annotation changed', updated: changed({ annotations: { note: 'z' } }), expected: true },
    {
      name: 'deletionTimestamp appeared',
      updated: changed({ deletionTimestamp: new Date('2026-01-01T00:00:00Z') }),
      expected: true,
    },
    { name: 'status only', updated: changed({}, { status: { observedGeneration: 2 } }), expected: false },
    { name: 'resourceVersion only', updated: changed({ resourceVersion: '11' }), expected: false },
    { name: 'managedFields only', updated: changed({ managedFields: [] }), expected: false },
    { name: 'finalizers only', updated: changed({ finalizers: [] }), expected: false },
    { name: 'nothing', updated: changed({}), expected: false },
  ])('$name -> $expected', ({ updated, expected }) => {
    expect(shouldEnqueueUpdate(base, updated)).toBe(expected);
  });

  it('treats a deletionTimestamp that changed as a change', () => {
    const a = changed({ deletionTimestamp: new Date('2026-01-01T00:00:00Z') });
    const b = changed({ deletionTimestamp: new Date('2026-01-01T00:00:05Z') });
    expect(shouldEnqueueUpdate(a, b)).toBe(true);
  });

  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', resourceVersion: '1' },
    data: { k: 'YQ==' },
  };
  it.each([
    { name: 'data changed', newObj: { ...secret, data: { k: 'Yg==' } }, expected: true },
    {
      name: 'only resourceVersion',
      newObj: { ...secret, metadata: { ...secret.metadata, resourceVersion: '2' } },
      expected: false,
    },
  ])('kinds without generation: $name -> $expected', ({ newObj, expected }) => {
    expect(shouldEnqueueUpdate(secret, newObj)).toBe(expected);
  });
});
