/**
 * A status write that always fails (the API server refuses every write to the status subresource,
 * through a ValidatingAdmissionPolicy) must not replay what a pass sent to the control plane: the next
 * passes see what was applied, so a changed secret is PATCHed once, not once per retry (issue 15).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeRequest } from '../src/kube/request.ts';
import { defaultListeners } from '../src/simulator/index.ts';
import {
  AGD_PATH,
  createAgd,
  eventually,
  type Harness,
  putSecret,
  startHarness,
  waitReady,
} from './support/harness.ts';

const LISTENER = defaultListeners()[0]?.id as string;
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const PATCH_ROUTE = '/v2/deployments/{deployment_id}';

let h: Harness;
let policy: string;

beforeAll(async () => {
  h = await startHarness('status-fails');
  policy = `deny-status-${h.ns}`;
});

afterAll(async () => {
  for (const kind of ['validatingadmissionpolicybindings', 'validatingadmissionpolicies']) {
    await kubeRequest(h.access, { method: 'DELETE', path: `${ADMISSION}/${kind}/${policy}` }).catch(
      () => undefined,
    );
  }
  await h?.stop();
});

/** From now on the API server refuses every status write in the test's namespace. */
async function refuseStatusWrites(): Promise<void> {
  await kubeRequest(h.access, {
    method: 'POST',
    path: `${ADMISSION}/validatingadmissionpolicies`,
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policy },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['deploy.agents.dev'],
              apiVersions: ['*'],
              operations: ['UPDATE'],
              resources: ['agentdeployments/status'],
            },
          ],
        },
        validations: [{ expression: 'false', message: 'status writes are refused (test fault)' }],
      },
    },
  });
  await kubeRequest(h.access, {
    method: 'POST',
    path: `${ADMISSION}/validatingadmissionpolicybindings`,
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: policy },
      spec: {
        policyName: policy,
        validationActions: ['Deny'],
        matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': h.ns } } },
      },
    },
  });
  // The policy takes a moment to load: wait until a status write of our own is refused.
  await eventually(async () => {
    try {
      await kubeRequest(h.access, {
        method: 'PATCH',
        path: `${AGD_PATH(h.ns)}/app/status`,
        body: { status: {} },
        contentType: 'application/merge-patch+json',
      });
      return false;
    } catch (err) {
      return String(err).includes('refused') || (err as Error).message.includes('refused');
    }
  }, 'status writes refused');
}

const failedPasses = () =>
  h.logs.filter((line) => line.includes('reconcile failed') && line.includes(`"key":"${h.ns}/app"`)).length;

it('a changed secret is PATCHed once over many passes whose status write fails', async () => {
  await putSecret(h, 'app-secrets', { TOKEN: 'first-value-0001' });
  await createAgd(h, {
    metadata: { name: 'app' },
    spec: {
      source: 'external_image',
      sourceConfig: { listenerId: LISTENER },
      sourceRevisionConfig: { imageUri: 'registry.example.com/app:1' },
      secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'app-secrets', key: 'TOKEN' } } }],
    },
  });
  await waitReady(h, 'app');
  await refuseStatusWrites();

  const patches = () => h.sim.requests({ method: 'PATCH', route: PATCH_ROUTE }).length;
  const before = patches();
  const failedBefore = failedPasses();
  await putSecret(h, 'app-secrets', { TOKEN: 'second-value-0002' });
  await eventually(async () => patches() > before, 'the changed secret PATCHed');
  // Several more passes, each failing at its status write (backoff 1s, 2s, 4s...).
  await eventually(
    async () => failedPasses() - failedBefore >= 4,
    'four passes failing at the status write',
    60_000,
  );
  expect(patches() - before).toBe(1);
});
