/**
 * The plan and the controller take their ownership verdict from one function (reconcile/agentdeployment/ownership.ts):
 * changing the verdict changes what both do. The verdict is replaced here by one that stalls everything,
 * and both the controller's gather (its port, running the chain's ownership gate) and the plan report
 * that very stall.
 */
import { describe, expect, it, vi } from 'vitest';
import type { AgentDeployment } from '../api/agentdeployment.ts';
import { controllerPort } from '../controllers/agentdeployment/program/gather.ts';
import type {
  AgentDeploymentDeps,
  AgentDeploymentPass,
  DeploymentClient,
} from '../controllers/agentdeployment/types.ts';
import type { AgentDeploymentFacts } from '../reconcile/agentdeployment/facts.ts';
import { ownership } from '../reconcile/agentdeployment/gates/ownership.ts';
import { runAgentDeployment } from '../reconcile/agentdeployment/program.ts';
import { planAgentDeployment } from './agentdeployment.ts';
import type { PlanClient, PlanWorld } from './model.ts';

const FORCED = 'forced by the test: the one verdict decides';

vi.mock('../reconcile/agentdeployment/ownership.ts', async (original) => {
  const real = await original<typeof import('../reconcile/agentdeployment/ownership.ts')>();
  return {
    ...real,
    ownership: () => ({ kind: 'stall', reason: 'NameConflict', message: FORCED }),
  };
});

const noDeployments = {
  getDeployment: async () => {
    throw new Error('not asked');
  },
  findDeploymentsByName: async () => [],
  getRevision: async () => {
    throw new Error('no revision read here');
  },
  listAllSandboxTemplates: async () => [],
};

describe('one ownership verdict for the plan and the controller', () => {
  it('a changed verdict changes the controller', async () => {
    const obj = {
      metadata: { name: 'agent', namespace: 'ns', uid: 'u-1' },
      spec: {},
    } as unknown as AgentDeployment;
    const pass = {
      obj,
      spec: obj.spec,
      status: {},
      events: [],
    } as unknown as AgentDeploymentPass;
    const deps = {
      observer: { fresh: () => undefined, remember: () => {}, forget: () => {} },
      claims: () => [],
      now: () => new Date(),
      revisionPollMs: 5_000,
    } as unknown as AgentDeploymentDeps;
    const facts = {
      object: { metadata: obj.metadata, spec: obj.spec, status: pass.status },
      now: new Date(),
      revisionPollMs: 5_000,
      statusKnown: true,
      prepared: new Set(),
      credentials: {
        ok: true,
        credentials: { baseUrl: 'https://cp.example.com', apiKey: 'k' },
        tenant: 'sha256:t',
        identity: 'i',
      },
      claims: { claims: () => [] },
    } as unknown as AgentDeploymentFacts;
    const port = controllerPort(
      { ...deps, controlPlane: () => noDeployments as unknown as DeploymentClient },
      pass,
    );
    const verdict = await runAgentDeployment(facts, port, [['ownership', ownership]]);
    expect(verdict).toMatchObject({ kind: 'stall', reason: 'NameConflict', message: FORCED });
  });

  it('a changed verdict changes the plan', async () => {
    const world: PlanWorld = {
      kube: undefined,
      defaultCredentials: { baseUrl: 'https://cp.example.com', apiKey: 'test-key' },
      digestKey: undefined,
      controlPlane: () => noDeployments as PlanClient,
    };
    const entry = await planAgentDeployment(
      {
        apiVersion: 'deploy.agents.dev/v1alpha1',
        kind: 'AgentDeployment',
        metadata: { name: 'agent' },
        spec: {
          source: 'external_image',
          sourceConfig: { listenerId: 'l-1' },
          sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
        },
      },
      'ns',
      world,
    );
    expect(entry).toMatchObject({ action: 'stall', reason: 'NameConflict', message: FORCED });
  });
});
