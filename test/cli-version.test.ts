/**
 * Issue 52, hole 4: `kubectl agd version` and the plan's version note read the controller's version from
 * what the controller publishes in its own namespace (the settings ConfigMap its Deployment owns), never
 * from a Deployment any namespace may label as the controller, and print the cluster's text cleaned.
 * Against the run's API server.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_VERSION, planVersionNote } from '../src/cli/version.ts';
import { runCli } from '../src/cli.ts';
import { loadConfig } from '../src/config.ts';
import type { KubeAccess } from '../src/kube/access.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { publishedSettingsOf } from '../src/reconcile/settings.ts';
import { publishOwnSettings, publishSettings, settingsOwner } from '../src/runtime/publish-settings.ts';
import { CONTROLLER_DEPLOYMENT, createControllerDeployment } from './support/harness.ts';
import { createTestNamespace, kubeAccessFromProvided } from './support/kube.ts';

const FORGED = '6.6.6';

let access: KubeAccess;
/** A namespace whose user labels a Deployment as the controller, with a version and a hostile image tag. */
let impostor: string;
/** The controller's namespace: its Deployment, and the settings it publishes, owned by it. */
let controller: string;

beforeAll(async () => {
  access = kubeAccessFromProvided();
  impostor = await createTestNamespace('version-impostor');
  controller = await createTestNamespace('version-controller');
  const labels = { 'app.kubernetes.io/name': 'agent-deployment-operator' };
  await kubeRequest(access, {
    method: 'POST',
    path: `/apis/apps/v1/namespaces/${impostor}/deployments`,
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'agent-deployment-operator',
        labels: { ...labels, 'app.kubernetes.io/version': FORGED },
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: 'controller', image: `agent-deployment-operator:${FORGED}` }] },
        },
      },
    },
  });
  await createControllerDeployment(access, controller);
  await publishOwnSettings(
    access,
    loadConfig([], {
      POD_NAMESPACE: controller,
      OPERATOR_DEPLOYMENT: CONTROLLER_DEPLOYMENT,
      CONTROL_PLANE_URL: 'https://cp.example.com',
    }),
  );
});

async function version(...args: string[]): Promise<string> {
  let stdout = '';
  const code = await runCli({
    argv: ['version', ...args],
    env: {},
    stdin: () => '',
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stdout += t;
    },
    isTty: false,
    kubeAccess: () => access,
  });
  expect(code).toBe(0);
  return stdout;
}

describe("hole 4: the controller's version is what it publishes, never a labelled Deployment's", () => {
  it('names the version the controller publishes in the namespace given', async () => {
    const text = await version('--operator-namespace', controller);
    expect(text).toContain(`controller: ${CLIENT_VERSION} (${controller}/${CONTROLLER_DEPLOYMENT})\n`);
    expect(text).not.toContain(FORGED);
  });

  it("without --operator-namespace, reads the default namespace only: another namespace's label is never printed", async () => {
    const text = await version();
    expect(text).not.toContain(FORGED);
    expect(text).toContain('controller: ');
    expect(await planVersionNote(access)).toBeUndefined();
  });

  it("the plan's note: the published version, naming the controller's Deployment", async () => {
    expect(await planVersionNote(access, impostor)).toBeUndefined();
    expect(await planVersionNote(access, controller)).toBeUndefined();
    // A controller of another version publishes that version.
    await publishSettings(
      access,
      controller,
      publishedSettingsOf({ controllerVersion: '9.9.9' }),
      await settingsOwner(access, controller, CONTROLLER_DEPLOYMENT),
    );
    expect(await planVersionNote(access, controller)).toBe(
      `the controller in the cluster runs version 9.9.9 (${controller}/${CONTROLLER_DEPLOYMENT}) and this plugin is ${CLIENT_VERSION}: the plan says what ${CLIENT_VERSION} would do; install kubectl-agd 9.9.9 to plan with the controller's code`,
    );
  });
});
