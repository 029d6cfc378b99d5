/**
 * `kubectl agd plan` in CI with the controller's key prints a platform value only when its reader could
 * read it anyway (src/plan/value-visibility.ts): here against the real API server, as a CI user that
 * may read and dry-run AgentDeployments, first without and then with `get` on the namespace's Secrets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlaneClient } from '../src/controlplane/client.ts';
import { KubeAccess } from '../src/kube/access.ts';
import { loadKubeconfigFiles } from '../src/kube/kubeconfig.ts';
import { targetOf } from '../src/kube/target.ts';
import { formatPlan } from '../src/plan/format.ts';
import { kubePlanReads } from '../src/plan/kube.ts';
import type { InputObject, PlanKind } from '../src/plan/model.ts';
import { planObjects } from '../src/plan/plan.ts';
import { createAgd, type Harness, startHarness, waitReady } from './support/harness.ts';
import { kubectl, testKubeconfigPath } from './support/kube.ts';
import { planWorld } from './support/plan-world.ts';

const LISTENER = '3b6f0c1e-8a4d-4e6f-9b7a-1c2d3e4f5a6b';
const LIVE_VALUE = 'live-only-upstream-9d1c';
const CI_USER = 'plan-values-ci';
const DIGEST_KEY = 'plan-values-digest-key';

let h: Harness;
const clients: ControlPlaneClient[] = [];
beforeAll(async () => {
  h = await startHarness('plan-values', { env: { SECRETS_DIGEST_KEY: DIGEST_KEY } });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await h?.stop();
});

/** The applied object labels its pods with LIVE_VALUE; the one planned (the pull request) does not. */
const object = (cpu: number, labels?: Record<string, string>): InputObject & { kind: PlanKind } => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'AgentDeployment',
  metadata: { name: 'agent', namespace: h.ns },
  spec: {
    source: 'external_image',
    sourceConfig: {
      listenerId: LISTENER,
      resourceSpec: { cpu, memoryMb: 512, ...(labels ? { labels } : {}) },
    },
    sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
  },
});

/**
 * The plan as the CI user (impersonated) would print it; `planNamespace`: the namespace the plan is run
 * for (-n), whose objects' values its readers may see.
 */
async function planAsCi(planNamespace = h.ns): Promise<string> {
  const ci = new KubeAccess({
    ...targetOf(loadKubeconfigFiles([testKubeconfigPath()])),
    impersonate: { user: CI_USER, groups: ['system:authenticated'], extra: {} },
  });
  const world = { ...planWorld(h, DIGEST_KEY, clients), kube: kubePlanReads(ci, h.ns) };
  return formatPlan(await planObjects([object(1)], planNamespace, world), 'text', false);
}

async function grant(name: string, resource: string, verbs: string): Promise<void> {
  const role = await kubectl(['create', 'role', name, `--verb=${verbs}`, `--resource=${resource}`], {
    namespace: h.ns,
  });
  expect(role.code, role.stderr).toBe(0);
  const binding = await kubectl(['create', 'rolebinding', name, `--role=${name}`, `--user=${CI_USER}`], {
    namespace: h.ns,
  });
  expect(binding.code, binding.stderr).toBe(0);
}

describe("kubectl agd plan with the controller's key, as a CI user", () => {
  it("prints the platform's values of the object's own deployment only when it may read the namespace's Secrets", {
    timeout: 120_000,
  }, async () => {
    await createAgd(h, object(0.5, { upstream: LIVE_VALUE }) as unknown as Record<string, unknown>);
    await waitReady(h, 'agent');
    await grant('plan-reads', 'agentdeployments.deploy.agents.dev', 'get,list,patch');
    // The controller's published settings (the harness's controller publishes them in its namespace),
    // and the Deployment that owns them, which proves them the controller's.
    await grant('plan-settings', 'configmaps,deployments.apps', 'get');

    const hidden = await planAsCi();
    expect(hidden).toContain('source_config.resource_spec.labels: "(hidden)" → null');
    expect(hidden).not.toContain(LIVE_VALUE);
    expect(hidden).toContain('--show-values');

    await grant('plan-secrets', 'secrets', 'get');
    const shown = await planAsCi();
    expect(shown).toContain(LIVE_VALUE);
    expect(shown).not.toContain('(hidden)');
  });

  // Issue 52, hole 8: another team's CI plans a change that names this namespace. Its CI user may get
  // Secrets here (granted above), but its log's readers are that team's: this namespace's values stay hidden.
  it("hole 8: a plan for another namespace prints nothing of this namespace's values", async () => {
    const otherTeams = await planAsCi('another-team');
    expect(otherTeams).toContain('source_config.resource_spec.labels: "(hidden)" → null');
    expect(otherTeams).not.toContain(LIVE_VALUE);
    expect(otherTeams).toContain('--show-values-in');
  });
});
