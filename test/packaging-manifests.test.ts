/**
 * The plain-manifest install (kustomize): `kubectl apply -k manifests/ --server-side` against the run's API
 * server, the objects it creates, and the RBAC it grants compared with scripts/rbac-rules.ts.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MANIFESTS_NAMESPACE } from '../scripts/generate-packaging.ts';
import { CRD_KEEP_ANNOTATIONS } from '../src/api/crds.ts';
import { excessPermissions, type K8sObject, parseDocuments, REPO } from './packaging-helpers.ts';
import { eventually } from './support/harness.ts';
import { kubectl } from './support/kube.ts';

const MANIFESTS = join(REPO, 'manifests');
const NAME = 'agent-deployment-operator';
const SA = `system:serviceaccount:${MANIFESTS_NAMESPACE}:${NAME}`;

let objects: K8sObject[];

beforeAll(async () => {
  const built = await kubectl(['kustomize', MANIFESTS]);
  expect(built.code, built.stderr).toBe(0);
  objects = parseDocuments(built.stdout);
});

describe('manifests/', () => {
  it('hold the install: namespace, RBAC, a hardened two-replica Deployment and a metrics Service', () => {
    const kinds = objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
    expect(kinds).toEqual(
      [
        `Namespace/${NAME}`,
        `ServiceAccount/${NAME}`,
        `ClusterRole/${NAME}`,
        `ClusterRole/${NAME}-view`,
        `ClusterRole/${NAME}-edit`,
        `ClusterRoleBinding/${NAME}`,
        `ClusterRole/${NAME}-cluster`,
        `ClusterRoleBinding/${NAME}-cluster`,
        `Role/${NAME}-leader-election`,
        `RoleBinding/${NAME}-leader-election`,
        `Deployment/${NAME}`,
        `Service/${NAME}-metrics`,
        `FlowSchema/${NAME}-${NAME}-leases`,
      ].sort(),
    );
    const deployment = objects.find((o) => o.kind === 'Deployment') as K8sObject;
    const spec = deployment.spec as { replicas: number; template: { spec: Record<string, unknown> } };
    expect(spec.replicas).toBe(2);
    expect(spec.template.spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const [container] = spec.template.spec.containers as [Record<string, unknown>];
    expect(container.image).toBe(`${NAME}:0.1.0`);
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.livenessProbe).toMatchObject({ httpGet: { path: '/healthz' } });
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: '/readyz' } });
    expect(container.env).toContainEqual({ name: 'LEADER_ELECT', value: 'true' });
  });

  it('keep the CRDs in a kustomization of their own, so kubectl delete -k manifests/ leaves them', async () => {
    expect(objects.filter((o) => o.kind === 'CustomResourceDefinition')).toEqual([]);
    const built = await kubectl(['kustomize', join(MANIFESTS, 'crds')]);
    expect(built.code, built.stderr).toBe(0);
    const crds = parseDocuments(built.stdout);
    expect(crds.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'CustomResourceDefinition/agentdeployments.deploy.agents.dev',
      'CustomResourceDefinition/deploymentwindowpolicies.deploy.agents.dev',
      'CustomResourceDefinition/sandboxtemplates.deploy.agents.dev',
    ]);
    for (const crd of crds) expect(crd.metadata.annotations).toMatchObject(CRD_KEEP_ANNOTATIONS);
  });

  it('grant no verb the controller does not use', () => {
    expect(excessPermissions(objects)).toEqual([]);
  });

  it('apply server-side with kubectl apply -k, and the service account gets exactly its permissions', async () => {
    const crds = await kubectl([
      'apply',
      '--server-side',
      '--force-conflicts',
      '-k',
      join(MANIFESTS, 'crds'),
    ]);
    expect(crds.stderr).toBe('');
    expect(crds.code).toBe(0);
    const applied = await kubectl(['apply', '--server-side', '--force-conflicts', '-k', MANIFESTS]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);

    const got = await kubectl(
      [
        'get',
        `deployment/${NAME}`,
        `serviceaccount/${NAME}`,
        `service/${NAME}-metrics`,
        `role/${NAME}-leader-election`,
        `rolebinding/${NAME}-leader-election`,
        `clusterrole/${NAME}`,
        `clusterrolebinding/${NAME}`,
        '-o',
        'name',
      ],
      { namespace: MANIFESTS_NAMESPACE },
    );
    expect(got.stderr).toBe('');
    expect(got.stdout.trim().split('\n')).toHaveLength(7);

    const canI = async (verb: string, resource: string, namespace: string, subresource?: string) => {
      const sub = subresource ? [`--subresource=${subresource}`] : [];
      return (
        await kubectl(['auth', 'can-i', verb, resource, ...sub, '-n', namespace, '--as', SA])
      ).stdout.trim();
    };
    // The RBAC authorizer learns of new roles and bindings through its own informers: wait for the grant
    // to reach it before asking the questions (a `no` here once was only that lag).
    await eventually(
      async () => (await canI('list', 'agentdeployments.deploy.agents.dev', 'default')) === 'yes',
      'the service account grant to reach the authorizer',
    );
    expect(await canI('list', 'agentdeployments.deploy.agents.dev', 'default')).toBe('yes');
    expect(await canI('patch', 'sandboxtemplates.deploy.agents.dev', 'default', 'status')).toBe('yes');
    expect(await canI('patch', 'agentdeployments.deploy.agents.dev', 'default', 'status')).toBe('yes');
    expect(await canI('update', 'agentdeployments.deploy.agents.dev', 'default', 'status')).toBe('no');
    // Template import is off in the plain install, so nothing may create SandboxTemplates.
    expect(await canI('create', 'sandboxtemplates.deploy.agents.dev', 'default')).toBe('no');
    expect(await canI('create', 'events', 'default')).toBe('yes');
    expect(await canI('update', 'leases.coordination.k8s.io', MANIFESTS_NAMESPACE)).toBe('yes');
    expect(await canI('update', 'leases.coordination.k8s.io', 'default')).toBe('no');
    expect(await canI('delete', 'agentdeployments.deploy.agents.dev', 'default')).toBe('no');
    expect(await canI('update', 'secrets', 'default')).toBe('no');
    // The policies are cluster-scoped: read, and their status patched, never written otherwise.
    expect(await canI('list', 'deploymentwindowpolicies.deploy.agents.dev', 'default')).toBe('yes');
    expect(await canI('patch', 'deploymentwindowpolicies.deploy.agents.dev', 'default', 'status')).toBe(
      'yes',
    );
    expect(await canI('patch', 'deploymentwindowpolicies.deploy.agents.dev', 'default')).toBe('no');
  });
});
