/** The plan refuses a credentials Secret naming a control plane the administrator has not listed, as the controller does. */
import { describe, expect, it } from 'vitest';
import { controlPlaneAllowList } from '../controlplane/allowed-control-planes.ts';
import { planAgentDeployment } from './agentdeployment.ts';
import type { PlanWorld } from './model.ts';

const secret = (baseUrl: string) => ({
  apiKey: Buffer.from('team-key').toString('base64'),
  baseUrl: Buffer.from(baseUrl).toString('base64'),
});

const input = {
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'AgentDeployment',
  metadata: { name: 'agent' },
  spec: {
    source: 'external_image',
    sourceConfig: { listenerId: 'l-1' },
    sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
    credentialsSecretRef: { name: 'team' },
  },
};

function world(baseUrl: string, listed = ''): { world: PlanWorld; asked: string[] } {
  const asked: string[] = [];
  const client = {
    getDeployment: async () => {
      throw new Error('not asked');
    },
    findDeploymentsByName: async () => {
      asked.push('list');
      return [];
    },
    getRevision: async () => {
      throw new Error('no revision read here');
    },
    listAllSandboxTemplates: async () => [],
  };
  return {
    asked,
    world: {
      kube: undefined,
      defaultCredentials: { baseUrl: 'https://cp.example.com', apiKey: 'controller-key' },
      allowedControlPlanes: controlPlaneAllowList(listed, 'https://cp.example.com'),
      inputSecret: (_ns, name) => (name === 'team' ? secret(baseUrl) : undefined),
      digestKey: undefined,
      controlPlane: () => client,
    },
  };
}

describe('plan: the control planes a namespace may name', () => {
  it('a Secret naming a control plane not listed: stall ControlPlaneNotAllowed, nothing asked', async () => {
    const { world: w, asked } = world('https://elsewhere.example.net');
    const entry = await planAgentDeployment(input, 'ns', w);
    expect(entry).toMatchObject({ action: 'stall', reason: 'ControlPlaneNotAllowed' });
    expect(entry.message).toContain('https://elsewhere.example.net');
    expect(entry.message).toContain('--allowed-control-plane-urls');
    expect(asked).toEqual([]);
  });

  it('listed: planned as the controller would (a create)', async () => {
    const { world: w } = world('https://elsewhere.example.net', 'https://elsewhere.example.net');
    expect(await planAgentDeployment(input, 'ns', w)).toMatchObject({ action: 'create' });
  });
});
