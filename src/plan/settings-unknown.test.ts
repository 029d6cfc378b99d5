/**
 * The controller's settings decide what it does (which namespaces may use its credentials, the allowed
 * control planes): a plan with a cluster reads them from the ConfigMap the controller publishes, and
 * without them says `unknown` rather than guessing; without a cluster its own flags stand for them.
 */
import { describe, expect, it } from 'vitest';
import { planAgentDeployment } from './agentdeployment.ts';
import type { PlanWorld } from './model.ts';
import { planSandboxTemplate } from './sandboxtemplate.ts';

/** A control plane without deployments (asked only once the settings are known). */
const emptyControlPlane = () => ({
  getDeployment: async () => {
    throw new Error('no deployment is read here');
  },
  getRevision: async () => {
    throw new Error('no revision is read here');
  },
  findDeploymentsByName: async () => [],
  listAllSandboxTemplates: async () => [],
});

function world(cluster: boolean): PlanWorld {
  return {
    kube: cluster
      ? ({
          live: async () => undefined,
          secret: async () => undefined,
          dryRun: async () => undefined,
          agentDeployments: async () => [],
          agentDeploymentsMatching: async () => [],
          controllerSettings: async () => ({
            ok: false,
            reason: 'ConfigMap agent-deployment-operator/agent-deployment-operator-settings not found',
          }),
          settingsLocation: 'agent-deployment-operator/agent-deployment-operator-settings',
          namespaceLabels: async () => ({}),
          windowPolicies: async () => [],
          maySeeSecrets: async () => false,
        } as PlanWorld['kube'])
      : undefined,
    defaultCredentials: { baseUrl: 'https://cp.example.com', apiKey: 'k' },
    digestKey: undefined,
    controlPlane: emptyControlPlane,
  };
}

const agent = {
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'AgentDeployment',
  metadata: { name: 'agent' },
  spec: {
    source: 'external_image',
    sourceConfig: { listenerId: 'l-1' },
    sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
  },
};

describe("the controller's settings", () => {
  it('not published: an AgentDeployment is unknown, naming where they were looked for', async () => {
    const entry = await planAgentDeployment(agent, 'team-a', world(true));
    expect(entry).toMatchObject({ action: 'unknown', reason: 'SettingsUnknown' });
    expect(entry.message).toContain('agent-deployment-operator/agent-deployment-operator-settings');
  });

  it('not published: a SandboxTemplate is unknown too', async () => {
    const entry = await planSandboxTemplate(
      {
        apiVersion: 'deploy.agents.dev/v1alpha1',
        kind: 'SandboxTemplate',
        metadata: { name: 'python' },
        spec: { templateName: 'python' },
      },
      'team-a',
      world(true),
    );
    expect(entry).toMatchObject({ action: 'unknown', reason: 'SettingsUnknown' });
  });

  it('without a cluster the plan plans with its own flags', async () => {
    const entry = await planAgentDeployment(agent, 'team-a', world(false));
    expect(entry).toMatchObject({ action: 'create' });
  });
});
