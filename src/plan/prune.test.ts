/**
 * --prune: the objects of the cluster that match the selector and are not in the input, each planned by
 * the controller's deletion decision with read-only reads (fake cluster, fake control plane).
 */
import { describe, expect, it } from 'vitest';
import { FINALIZER } from '../api/names.ts';
import { NotFoundError } from '../controlplane/errors.ts';
import type { Deployment } from '../controlplane/schemas.ts';
import { tenantDigest } from '../controlplane/tenant.ts';
import { publishedSettingsOf } from '../reconcile/settings.ts';
import { exitCodeOf } from './format.ts';
import type { InputObject, LiveObject, PlanKind, PlanWorld } from './model.ts';
import { planObjects } from './plan.ts';

const BASE_URL = 'https://cp.example.com';
const TENANT = tenantDigest({ baseUrl: BASE_URL });

const deployment = (id: string, status = 'READY'): Deployment => ({
  id,
  name: id,
  source: 'external_image',
  source_config: { listener_id: 'l-1' },
  source_revision_config: { image_uri: 'registry.local/agent:1' },
  secrets: [],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status,
  latest_revision_id: 'r-1',
  active_revision_id: 'r-1',
});

const live = (
  name: string,
  over: { spec?: object; status?: object; finalizers?: string[] } = {},
): LiveObject => ({
  metadata: {
    name,
    namespace: 'team-a',
    uid: `u-${name}`,
    labels: { app: 'agents' },
    finalizers: over.finalizers ?? [FINALIZER],
  },
  spec: { source: 'external_image', ...over.spec },
  status: { deploymentId: `d-${name}`, credentialsDigest: TENANT, ...over.status },
});

function worldWith(cluster: LiveObject[], platform: Deployment[]) {
  const reads: string[] = [];
  const world: PlanWorld = {
    kube: {
      live: async () => undefined,
      secret: async () => undefined,
      dryRun: async () => undefined,
      agentDeployments: async () => cluster,
      agentDeploymentsMatching: async (namespace, selector) => {
        reads.push(`list ${namespace} ${selector}`);
        return cluster.filter((o) => o.metadata.namespace === namespace);
      },
      controllerSettings: async () => ({
        ok: true,
        settings: publishedSettingsOf({ defaultControlPlaneUrl: BASE_URL }),
        deployment: 'agent-deployment-operator/agent-deployment-operator',
      }),
      settingsLocation: 'agent-deployment-operator/agent-deployment-operator-settings',
      namespaceLabels: async () => ({}),
      windowPolicies: async () => [],
      maySeeSecrets: async () => false,
    },
    defaultCredentials: { baseUrl: BASE_URL, apiKey: 'k' },
    digestKey: undefined,
    controlPlane: () => ({
      async getDeployment(id) {
        reads.push(`GET ${id}`);
        const found = platform.find((d) => d.id === id);
        if (!found) throw new NotFoundError('getDeployment', 'not found');
        return found;
      },
      findDeploymentsByName: async (name) => platform.filter((d) => d.name === name),
      getRevision: async () => {
        throw new Error('no revision read here');
      },
      listAllSandboxTemplates: async () => [],
    }),
  };
  return { world, reads };
}

const prune = async (cluster: LiveObject[], platform: Deployment[], given: InputObject[] = []) => {
  const { world, reads } = worldWith(cluster, platform);
  const entries = await planObjects(given as (InputObject & { kind: PlanKind })[], 'team-a', world, [], {
    selector: 'app=agents',
  });
  return { entries, reads };
};

describe('plan --prune', () => {
  it.each<[string, LiveObject, Deployment[], object]>([
    [
      'deletionPolicy Delete, the deployment there: delete, naming its id',
      live('a'),
      [deployment('d-a')],
      { action: 'delete', deploymentId: 'd-a', message: 'delete deployment d-a (a)' },
    ],
    [
      'deletionPolicy Orphan: orphan, the deployment left',
      live('a', { spec: { deletionPolicy: 'Orphan' } }),
      [deployment('d-a')],
      { action: 'orphan', deploymentId: 'd-a', message: 'left deployment d-a on the control plane' },
    ],
    [
      'observe-only: orphan, whatever deletionPolicy says',
      live('a', { spec: { deletionPolicy: 'Delete', managementPolicies: ['Observe'] } }),
      [deployment('d-a')],
      { action: 'orphan', message: 'left deployment d-a on the control plane (observe-only)' },
    ],
    [
      'owning nothing: orphan',
      live('a', { status: { deploymentId: undefined } }),
      [],
      { action: 'orphan', message: 'this object owns no deployment on the control plane: nothing deleted' },
    ],
    [
      'no finalizer: it goes, nothing sent',
      live('a', { finalizers: [] }),
      [deployment('d-a')],
      { action: 'orphan', message: 'the object has no finalizer: it goes, and nothing is sent' },
    ],
    [
      'the recorded deployment already gone: nothing to delete',
      live('a'),
      [],
      { action: 'orphan', message: 'deployment d-a no longer exists: nothing to delete' },
    ],
    [
      'the platform already deleting it: wait, nothing more sent',
      live('a'),
      [deployment('d-a', 'AWAITING_DELETE')],
      { action: 'wait', reason: 'Deleting', deploymentId: 'd-a' },
    ],
    [
      'recorded under other credentials and not found: CredentialsChanged',
      live('a', { status: { credentialsDigest: 'sha256:other' } }),
      [],
      { action: 'stall', reason: 'CredentialsChanged' },
    ],
    [
      'its credentials Secret missing: waits, as the controller would, nothing deleted',
      live('a', { spec: { credentialsSecretRef: { name: 'gone' } } }),
      [deployment('d-a')],
      { action: 'wait', reason: 'WaitingForCredentials' },
    ],
  ])('%s', async (_, obj, platform, expected) => {
    const { entries } = await prune([obj], platform);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      kind: 'AgentDeployment',
      namespace: 'team-a',
      name: 'a',
      removed: true,
      ...expected,
    });
  });

  it('a deletion is a change: exit 2; orphans alone: exit 0', async () => {
    expect(exitCodeOf((await prune([live('a')], [deployment('d-a')])).entries)).toBe(2);
    const orphan = live('a', { spec: { deletionPolicy: 'Orphan' } });
    expect(exitCodeOf((await prune([orphan], [deployment('d-a')])).entries)).toBe(0);
  });

  it('an object in the input is planned as given, not as removed; only the matching ones are listed', async () => {
    const given = {
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'AgentDeployment',
      metadata: { name: 'a' },
    };
    const { entries, reads } = await prune([live('a')], [deployment('d-a')], [given]);
    expect(entries.filter((e) => e.removed)).toEqual([]);
    expect(reads).toContain('list team-a app=agents');
  });
});
