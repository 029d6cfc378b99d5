/**
 * Issue 52, hole 6: `kubectl agd plan` believes the controller's settings ConfigMap only when it is the
 * controller's: it names the controller's Deployment of its namespace, with that Deployment's uid, as its
 * controlling owner (src/plan/controller-settings.ts), as the controller publishes it
 * (runtime/publish-settings.ts). Any other ConfigMap of that name makes the settings `unknown`, saying
 * why. Against the run's API server.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import type { KubeAccess } from '../src/kube/access.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { kubePlanReads } from '../src/plan/kube.ts';
import type { PlanKind, PlanWorld } from '../src/plan/model.ts';
import { planObjects } from '../src/plan/plan.ts';
import { publishedSettingsOf, SETTINGS_CONFIGMAP, SETTINGS_KEY } from '../src/reconcile/settings.ts';
import { publishOwnSettings } from '../src/runtime/publish-settings.ts';
import { CONTROLLER_DEPLOYMENT, createControllerDeployment } from './support/harness.ts';
import { createTestNamespace, kubeAccessFromProvided } from './support/kube.ts';

const BASE_URL = 'https://cp.example.com';

let access: KubeAccess;
let ns: string;
beforeEach(async () => {
  access = kubeAccessFromProvided();
  ns = await createTestNamespace('plan-settings-owner');
});

/** A control plane without deployments: an object the plan believes it may plan is a create. */
const world = (): PlanWorld => ({
  kube: kubePlanReads(access, ns),
  defaultCredentials: { baseUrl: BASE_URL, apiKey: 'k' },
  digestKey: undefined,
  controlPlane: () => ({
    getDeployment: async () => {
      throw new Error('no deployment is read here');
    },
    getRevision: async () => {
      throw new Error('no revision is read here');
    },
    findDeploymentsByName: async () => [],
    listAllSandboxTemplates: async () => [],
  }),
});

const agent = () => ({
  apiVersion: 'deploy.agents.dev/v1alpha1',
  kind: 'AgentDeployment' as PlanKind,
  metadata: { name: 'agent', namespace: ns },
  spec: {
    source: 'external_image',
    sourceConfig: { listenerId: 'l-1' },
    sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
  },
});

/** A ConfigMap of the settings' name, written by someone other than the controller. */
async function forge(ownerReferences?: unknown[]): Promise<void> {
  await kubeRequest(access, {
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/configmaps`,
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: SETTINGS_CONFIGMAP, namespace: ns, ...(ownerReferences ? { ownerReferences } : {}) },
      data: {
        [SETTINGS_KEY]: JSON.stringify(
          publishedSettingsOf({ defaultCredentialsNamespaces: [ns], defaultControlPlaneUrl: BASE_URL }),
        ),
      },
    },
  });
}

const ownerRef = (uid: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  name: CONTROLLER_DEPLOYMENT,
  uid,
  controller: true,
});

async function deploymentUid(): Promise<string> {
  const got = (await kubeRequest(access, {
    method: 'GET',
    path: `/apis/apps/v1/namespaces/${ns}/deployments/${CONTROLLER_DEPLOYMENT}`,
  })) as { metadata: { uid: string } };
  return got.metadata.uid;
}

const controllerConfig = () =>
  loadConfig([], {
    POD_NAMESPACE: ns,
    OPERATOR_DEPLOYMENT: CONTROLLER_DEPLOYMENT,
    CONTROL_PLANE_URL: BASE_URL,
    DEFAULT_CREDENTIALS_NAMESPACES: ns,
  });

const planned = async () => (await planObjects([agent()], ns, world()))[0];

describe("hole 6: the plan believes the settings ConfigMap only when it is the controller's", () => {
  it.each<[string, () => Promise<void>, string | ((ns: string) => string)]>([
    ['written by hand, with no owner', () => forge(), 'is not owned by a Deployment'],
    [
      'owned by a Deployment that is not there',
      () => forge([ownerRef(randomUUID())]),
      (n) => `names Deployment ${n}/${CONTROLLER_DEPLOYMENT}`,
    ],
    [
      'owned by a Deployment of the controller name, but another uid than the one there',
      async () => {
        await createControllerDeployment(access, ns);
        await forge([ownerRef(randomUUID())]);
      },
      'no such Deployment is there',
    ],
    [
      'owned by something else than a Deployment',
      async () => {
        await createControllerDeployment(access, ns);
        await forge([{ ...ownerRef(await deploymentUid()), kind: 'ReplicaSet' }]);
      },
      'is not owned by a Deployment',
    ],
  ])('%s: unknown, saying why', async (_case, arrange, why) => {
    await arrange();
    const entry = await planned();
    expect(entry).toMatchObject({ action: 'unknown', reason: 'SettingsUnknown' });
    expect(entry?.message).toContain(typeof why === 'string' ? why : why(ns));
  });

  it('published by the controller, owned by its Deployment: believed, and again once it is replaced', async () => {
    await createControllerDeployment(access, ns);
    await publishOwnSettings(access, controllerConfig());
    expect(await planned()).toMatchObject({ action: 'create' });

    // A new Deployment of the same name (a reinstall): the controller's next start names the new one.
    await kubeRequest(access, {
      method: 'DELETE',
      path: `/apis/apps/v1/namespaces/${ns}/deployments/${CONTROLLER_DEPLOYMENT}`,
    });
    await createControllerDeployment(access, ns);
    expect(await planned()).toMatchObject({ action: 'unknown', reason: 'SettingsUnknown' });
    await publishOwnSettings(access, controllerConfig());
    expect(await planned()).toMatchObject({ action: 'create' });
  });
});
