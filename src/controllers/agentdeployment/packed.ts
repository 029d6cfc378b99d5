/**
 * An AgentDeployment packed into a short string (pure): what a replica under --sharding=auto keeps of
 * the objects it stands by for (cached-share.ts), so that a failover unpacks them, with nothing to read
 * from the API server, while they take a fraction of the memory they would take in full.
 *
 * The object's JSON, deflated against a dictionary of what every AgentDeployment's JSON says (field
 * names, the API version, enum values, the usual condition), held as a one-byte string (V8 keeps it on
 * its heap, a byte a character, with no Buffer beside it). A converged object of 1.8 KB of JSON packs
 * into about 300 bytes, mostly its own ids, digests and times, where V8 holds it parsed in about 1.3 KB.
 * Lossless for any object the API server sends: JSON.stringify escapes a lone surrogate, so the UTF-8
 * in between is well formed.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import { ConditionType, FINALIZER, Reason } from '../../api/names.ts';

const ID = '00000000-0000-4000-8000-000000000000';
const TIME = '2026-01-01T00:00:00Z';
const DIGEST = 'sha256:00000000000000000000000000000000';

/**
 * A converged object as the API server sends it (a custom object's keys in order: Go encodes a map
 * so; deflate finds any substring of it anyway). Typed, so a renamed field fails to compile here
 * rather than packing worse unnoticed.
 */
const SAMPLE: AgentDeployment = {
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'AgentDeployment',
  metadata: {
    creationTimestamp: TIME as unknown as Date,
    finalizers: [FINALIZER],
    generation: 1,
    name: 'agent',
    namespace: 'team',
    resourceVersion: '1',
    uid: ID,
  },
  spec: {
    credentialsSecretRef: { name: 'platform-credentials' },
    deletionPolicy: 'Delete',
    name: 'agent',
    progressDeadline: '30m',
    source: 'external_image',
    sourceConfig: { listenerId: ID, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
    sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
  },
  status: {
    activeRevisionId: ID,
    appliedConfigDigest: DIGEST,
    conditions: [
      {
        lastTransitionTime: TIME,
        message: `revision ${ID} is DEPLOYED and deployment ${ID} READY`,
        observedGeneration: 1,
        reason: Reason.Succeeded,
        status: 'True',
        type: ConditionType.Ready,
      },
    ],
    credentialsDigest: DIGEST,
    deploymentId: ID,
    deploymentStatus: 'READY',
    history: [
      {
        createdAt: TIME,
        finishedAt: TIME,
        generation: 1,
        id: ID,
        image: 'registry.example.com/agent:1',
        outcome: 'Deployed',
        resourceSpecDigest: DIGEST,
        secretsDigest: `hmac-${DIGEST}`,
        status: 'DEPLOYED',
        trigger: 'Spec',
      },
    ],
    imageVersion: 'registry.example.com/agent:1',
    lastGoodRevision: ID,
    latestRevisionId: ID,
    observedGeneration: 1,
    revisionStatus: 'DEPLOYED',
    secretsDigest: `hmac-${DIGEST}`,
  },
};

const DICTIONARY = Buffer.from(JSON.stringify(SAMPLE));
/**
 * An 8 KiB window (the dictionary and an object's first 6 KB; a larger object packs its rest against
 * itself) and a small hash table: 40 KiB of zlib state a call where the defaults allocate 256, and
 * faster for it (each call sets its state up anew).
 */
const WINDOW = { dictionary: DICTIONARY, windowBits: 13 };
const DEFLATE = { ...WINDOW, memLevel: 5 };

export function packAgentDeployment(obj: AgentDeployment): string {
  return deflateRawSync(JSON.stringify(obj), DEFLATE).toString('latin1');
}

export function unpackAgentDeployment(packed: string): AgentDeployment {
  const json = inflateRawSync(Buffer.from(packed, 'latin1'), WINDOW).toString('utf8');
  return JSON.parse(json) as AgentDeployment;
}
