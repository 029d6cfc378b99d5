import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import { FINALIZER } from '../../api/names.ts';
import { packAgentDeployment, unpackAgentDeployment } from './packed.ts';

/** A converged object, its ids and uid its own (what the dictionary cannot know). */
const converged = (): AgentDeployment =>
  ({
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'AgentDeployment',
    metadata: {
      name: 'bench-00042',
      namespace: 'bench',
      uid: '6c1e2f0a-7b4d-4e55-9a1c-3d2e1f0a9b8c',
      resourceVersion: '918273',
      generation: 1,
      creationTimestamp: '2026-11-26T09:16:02Z',
      finalizers: [FINALIZER],
    },
    spec: {
      source: 'external_image',
      sourceConfig: {
        listenerId: '0f1e2d3c-4b5a-4697-8877-665544332211',
        resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 },
      },
      sourceRevisionConfig: { imageUri: 'registry.example.com/bench:1' },
      deletionPolicy: 'Delete',
      progressDeadline: '30m',
    },
    status: {
      deploymentId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      latestRevisionId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      activeRevisionId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      lastGoodRevision: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      revisionStatus: 'DEPLOYED',
      deploymentStatus: 'READY',
      imageVersion: 'registry.example.com/bench:1',
      observedGeneration: 1,
      credentialsDigest: 'sha256:5b0c7d1e2f3a4b5c6d7e8f9a0b1c2d3e',
      appliedConfigDigest: 'sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f9',
      secretsDigest: 'hmac-sha256:11223344556677889900aabbccddeeff',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Succeeded',
          observedGeneration: 1,
          lastTransitionTime: '2026-11-26T09:16:09Z',
          message:
            'revision 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d is DEPLOYED and deployment 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d READY',
        },
      ],
      history: [
        {
          id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
          generation: 1,
          createdAt: '2026-11-26T09:16:03Z',
          finishedAt: '2026-11-26T09:16:09Z',
          image: 'registry.example.com/bench:1',
          resourceSpecDigest: 'sha256:c6f799667e0d80625d66d2be8bf7d8ea',
          secretsDigest: 'hmac-sha256:11223344556677889900aabbccddeeff',
          status: 'DEPLOYED',
          outcome: 'Deployed',
          trigger: 'Spec',
        },
      ],
    },
  }) as unknown as AgentDeployment;

/** The API server's JSON of a custom object: every object's keys in order (Go's encoding of a map). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, sortedKeys(v)]),
  );
}

describe('packAgentDeployment / unpackAgentDeployment', () => {
  it.each([
    ['a converged object', converged()],
    ['an object as first applied (no status)', { ...converged(), status: undefined }],
    [
      'text of every kind: accents, emoji, a lone surrogate, a NUL, quotes and backslashes',
      {
        ...converged(),
        metadata: {
          ...converged().metadata,
          annotations: { note: 'é ü ß 漢字 🚀 \ud800 \u0000 "quoted" \\back\\' },
        },
      },
    ],
    [
      'a large object (many secrets, a long message)',
      {
        ...converged(),
        spec: {
          ...converged().spec,
          secrets: Array.from({ length: 200 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` })),
        },
      },
    ],
  ])('gives back %s exactly', (_name, obj) => {
    const packed = packAgentDeployment(obj as AgentDeployment);
    expect(unpackAgentDeployment(packed)).toEqual(JSON.parse(JSON.stringify(obj)));
    expect(JSON.stringify(unpackAgentDeployment(packed))).toBe(JSON.stringify(obj));
  });

  it('packs a converged object, as the API server sends it, into a fifth of its JSON (what is left is mostly its own ids and digests)', () => {
    const obj = sortedKeys(converged()) as AgentDeployment;
    expect(packAgentDeployment(obj).length).toBeLessThan(JSON.stringify(obj).length / 5);
  });

  it('is a one-byte string (one byte of memory per character)', () => {
    const packed = packAgentDeployment(converged());
    expect([...packed].every((c) => c.charCodeAt(0) <= 0xff)).toBe(true);
  });
});
