/**
 * Worlds where the plan once said something other than what the controller then did (issue 31), each
 * checked failing on the plan before it ran the controller's program: the plan now says what the
 * controller does (the controller side of the same worlds: reconcile-equivalence.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../controlplane/errors.ts';
import { planAgentDeployment } from './agentdeployment.ts';
import type { InputObject, LiveObject, PlanWorld } from './model.ts';
import { planSandboxTemplate } from './sandboxtemplate.ts';

const BASE_URL = 'https://cp.example.com';
const NS = 'team-a';

const spec = (over: Record<string, unknown> = {}) => ({
  source: 'external_image',
  sourceConfig: { listenerId: 'l-1' },
  sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
  ...over,
});

const input = (name: string, over: Record<string, unknown> = {}): InputObject => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'AgentDeployment',
  metadata: { name, namespace: NS },
  spec: spec(over),
});

/** The settings a controller publishes (plain JSON, as its ConfigMap holds them). */
const published = (namespaces: string[] = []) => ({
  defaultCredentials: { namespaces, namespaceSelector: '' },
  defaultControlPlaneUrl: BASE_URL,
  allowedControlPlaneUrls: [BASE_URL],
  objectSecretBudget: 2 * 1024 * 1024,
  namespaceSecretBudget: 8 * 1024 * 1024,
});

function worldOf(options: {
  live?: LiveObject;
  others?: LiveObject[];
  secrets?: Record<string, Record<string, string>>;
  settings?: ReturnType<typeof published>;
}): PlanWorld {
  const kube = {
    live: async () => options.live,
    secret: async (_ns: string, name: string) => options.secrets?.[name],
    dryRun: async () => undefined,
    agentDeployments: async () => [...(options.live ? [options.live] : []), ...(options.others ?? [])],
    agentDeploymentsMatching: async () => [],
    controllerSettings: async () => ({
      ok: true,
      settings: options.settings ?? published(),
      deployment: 'agent-deployment-operator/agent-deployment-operator',
    }),
    settingsLocation: 'agent-deployment-operator/agent-deployment-operator-settings',
    namespaceLabels: async () => ({}),
    windowPolicies: async () => [],
    maySeeSecrets: async () => true,
  };
  return {
    kube: kube as unknown as PlanWorld['kube'],
    defaultCredentials: { baseUrl: BASE_URL, apiKey: 'controller-key' },
    digestKey: 'dk',
    controlPlane: () => ({
      getDeployment: async () => {
        throw new NotFoundError('getDeployment', 'not found');
      },
      findDeploymentsByName: async () => [],
      getRevision: async () => {
        throw new Error('no revision read here');
      },
      listAllSandboxTemplates: async () => [],
    }),
  };
}

const liveOf = (
  name: string,
  over: Partial<LiveObject['metadata']> = {},
  body: Record<string, unknown> = {},
) =>
  ({
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      creationTimestamp: '2026-01-01T00:00:00Z',
      generation: 1,
      ...over,
    },
    spec: spec(),
    ...body,
  }) as LiveObject;

describe('the plan says what the controller does', () => {
  it('default credentials in a namespace the controller does not allow: stall, not create', async () => {
    const entry = await planAgentDeployment(input('agent'), NS, worldOf({ settings: published(['team-b']) }));
    expect(entry).toMatchObject({ action: 'stall', reason: 'DefaultCredentialsNotAllowed' });
  });

  it('an older observe-only object of the same name claims no name: the managing one is created', async () => {
    const watcher = liveOf(
      'watcher',
      { creationTimestamp: '2025-12-31T00:00:00Z' },
      {
        spec: spec({ name: 'agent', managementPolicies: ['Observe'] }),
      },
    );
    const live = liveOf('agent', { creationTimestamp: '2026-01-01T00:00:01Z' });
    const entry = await planAgentDeployment(input('agent'), NS, worldOf({ live, others: [watcher] }));
    expect(entry).toMatchObject({ action: 'create' });
  });

  it('an older object whose default credentials its namespace may not use claims nothing', async () => {
    const refused = liveOf('agent', {
      namespace: 'team-b',
      uid: 'uid-team-b-agent',
      creationTimestamp: '2025-12-31T00:00:00Z',
    });
    const entry = await planAgentDeployment(
      input('agent'),
      NS,
      worldOf({ live: liveOf('agent'), others: [refused], settings: published([NS]) }),
    );
    expect(entry).toMatchObject({ action: 'create' });
  });

  it('a stall that waits for a person holds while the object is unchanged: stall, not create', async () => {
    const live = liveOf(
      'agent',
      {},
      {
        status: {
          observedGeneration: 1,
          createPendingSince: undefined,
          conditions: [
            {
              type: 'Stalled',
              status: 'True',
              reason: 'Rejected',
              message: 'the control plane refused the request',
              observedGeneration: 1,
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
        },
      },
    );
    const entry = await planAgentDeployment(input('agent'), NS, worldOf({ live }));
    expect(entry).toMatchObject({ action: 'stall', reason: 'Rejected' });
  });

  it('Secrets past the object budget: stall BudgetExceeded, not create', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 'a').toString('base64');
    const entry = await planAgentDeployment(
      input('agent', {
        secrets: [{ name: 'BIG', valueFrom: { secretKeyRef: { name: 'big', key: 'value' } } }],
      }),
      NS,
      worldOf({ secrets: { big: { value: big } } }),
    );
    expect(entry).toMatchObject({ action: 'stall', reason: 'BudgetExceeded' });
  });

  it.each<[string, Record<string, string>, ReturnType<typeof published>, string, string | undefined]>([
    [
      'a SandboxTemplate paused: nothing, not its drift',
      { 'deploy.agents.dev/paused': 'true' },
      published(),
      'none',
      undefined,
    ],
    [
      'a SandboxTemplate on default credentials its namespace may not use: stall',
      {},
      published(['team-b']),
      'stall',
      'DefaultCredentialsNotAllowed',
    ],
  ])('%s', async (_, annotations, settings, action, reason) => {
    const world = worldOf({ settings });
    world.controlPlane = () => ({
      getDeployment: async () => {
        throw new NotFoundError('getDeployment', 'not found');
      },
      findDeploymentsByName: async () => [],
      getRevision: async () => {
        throw new Error('no revision read here');
      },
      listAllSandboxTemplates: async () => [{ id: 't-1', name: 'python', image: 'python:3.11' }],
    });
    const entry = await planSandboxTemplate(
      {
        apiVersion: 'deploy.agents.dev/v1alpha1',
        kind: 'SandboxTemplate',
        metadata: { name: 'python', namespace: NS, annotations },
        spec: { templateName: 'python', image: 'python:3.12' },
      },
      NS,
      world,
    );
    expect(entry).toMatchObject({ action, ...(reason ? { reason } : {}) });
  });

  it('a failed revision with a redeploy requested: redeploy, not none', async () => {
    const deployment = {
      id: 'd-1',
      name: 'agent',
      source: 'external_image',
      source_config: { listener_id: 'l-1' },
      source_revision_config: { image_uri: 'registry.example.com/agent:1' },
      secrets: [],
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      status: 'READY',
      latest_revision_id: 'r-1',
      active_revision_id: null,
    };
    const live = liveOf('agent', {}, { status: { deploymentId: 'd-1', latestRevisionId: 'r-1' } });
    const world = worldOf({ live });
    world.digestKey = undefined;
    world.controlPlane = () => ({
      getDeployment: async () => deployment as never,
      getRevision: async () =>
        ({
          id: 'r-1',
          status: 'BUILD_FAILED',
          created_at: '2026-01-01T00:00:00Z',
          updated_at: '2026-01-01T00:00:00Z',
        }) as never,
      findDeploymentsByName: async () => [],
      listAllSandboxTemplates: async () => [],
    });
    const requested = input('agent');
    requested.metadata.annotations = { 'deploy.agents.dev/redeploy-requested-at': 'now' };
    const entry = await planAgentDeployment(requested, NS, world);
    expect(entry).toMatchObject({ action: 'redeploy', deploymentId: 'd-1' });
  });
});
