/**
 * The plan reads the DeploymentWindowPolicies as the controller does: a policy selecting the object's
 * namespace holds its create (`wait`, WindowClosed, naming the policy); one it may not list, or no
 * cluster, is said in a note, never guessed.
 */
import { describe, expect, it } from 'vitest';
import type { DeploymentWindowPolicy } from '../api/deployment-window-policy.ts';
import { publishedSettingsOf } from '../reconcile/settings.ts';
import { planAgentDeployment } from './agentdeployment.ts';
import type { PlanWorld } from './model.ts';

const CP = 'https://cp.example.com';
const freeze = {
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'DeploymentWindowPolicy',
  metadata: { name: 'freeze' },
  spec: {
    namespaceSelector: { matchLabels: { tier: 'prod' } },
    windows: [{ kind: 'Deny', schedule: '0 0 * * *', duration: '8784h' }],
    manualOverride: false,
    allowRollback: true,
  },
} as DeploymentWindowPolicy;

function world(policies: DeploymentWindowPolicy[] | undefined, labels: Record<string, string>): PlanWorld {
  return {
    kube: {
      live: async () => undefined,
      secret: async () => undefined,
      dryRun: async () => undefined,
      agentDeployments: async () => [],
      agentDeploymentsMatching: async () => [],
      controllerSettings: async () => ({
        ok: true,
        settings: publishedSettingsOf({ defaultControlPlaneUrl: CP }),
        deployment: 'ns/agent-deployment-operator',
      }),
      settingsLocation: 'ns/settings',
      namespaceLabels: async () => labels,
      windowPolicies: async () => policies,
      maySeeSecrets: async () => false,
    } as PlanWorld['kube'],
    defaultCredentials: { baseUrl: CP, apiKey: 'k' },
    digestKey: undefined,
    controlPlane: () =>
      ({
        getDeployment: async () => {
          throw new Error('no deployment is read here');
        },
        findDeploymentsByName: async () => [],
      }) as unknown as ReturnType<PlanWorld['controlPlane']>,
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

describe('the plan and DeploymentWindowPolicies', () => {
  it.each<[string, DeploymentWindowPolicy[] | undefined, Record<string, string>, object, string | undefined]>(
    [
      [
        'a policy selecting the namespace: the create waits, naming it',
        [freeze],
        { tier: 'prod' },
        {
          action: 'wait',
          reason: 'WindowClosed',
          message: expect.stringContaining('DeploymentWindowPolicy/freeze windows[0]'),
        },
        undefined,
      ],
      [
        'a policy selecting other namespaces: the create goes',
        [freeze],
        { tier: 'dev' },
        { action: 'create' },
        undefined,
      ],
      [
        'policies this user may not list: planned without them, and said',
        undefined,
        { tier: 'prod' },
        { action: 'create' },
        'DeploymentWindowPolicies not read (this user may not list them)',
      ],
    ],
  )('%s', async (_name, policies, labels, expected, note) => {
    const entry = await planAgentDeployment(agent, 'team-a', world(policies, labels));
    expect(entry).toMatchObject(expected);
    if (note) expect(entry.notes.join('\n')).toContain(note);
    else expect(entry.notes.join('\n')).not.toContain('DeploymentWindowPolicies');
  });
});
