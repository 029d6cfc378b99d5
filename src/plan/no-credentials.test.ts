/**
 * Without the controller's credentials (no default control plane, no credentials Secret) the plan
 * cannot call the control plane: it says `unknown` (NoCredentials) where the controller would wait for
 * credentials, and only there: a paused object is paused, for both kinds (issue 51: a paused
 * SandboxTemplate planned NoCredentials).
 */
import { describe, expect, it } from 'vitest';
import { Annotation } from '../api/names.ts';
import { planAgentDeployment } from './agentdeployment.ts';
import type { PlanWorld } from './model.ts';
import { planSandboxTemplate } from './sandboxtemplate.ts';

const world: PlanWorld = {
  kube: undefined,
  defaultCredentials: {},
  digestKey: undefined,
  controlPlane: () => {
    throw new Error('no control plane without credentials');
  },
};

const paused = { [Annotation.Paused]: 'true' };

const agent = (annotations: Record<string, string>) => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'AgentDeployment',
  metadata: { name: 'agent', annotations },
  spec: {
    source: 'external_image',
    sourceConfig: { listenerId: 'l-1' },
    sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
  },
});

const template = (annotations: Record<string, string>) => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'SandboxTemplate',
  metadata: { name: 'python', annotations },
  spec: { templateName: 'python' },
});

describe('no credentials', () => {
  it.each([
    ['an AgentDeployment', 'unknown', () => planAgentDeployment(agent({}), 'team-a', world)],
    ['a paused AgentDeployment', 'none', () => planAgentDeployment(agent(paused), 'team-a', world)],
    ['a SandboxTemplate', 'unknown', () => planSandboxTemplate(template({}), 'team-a', world)],
    ['a paused SandboxTemplate', 'none', () => planSandboxTemplate(template(paused), 'team-a', world)],
  ] as const)('%s plans %s', async (_, action, plan) => {
    const entry = await plan();
    expect(entry.action).toBe(action);
    if (action === 'unknown') expect(entry.reason).toBe('NoCredentials');
  });
});
