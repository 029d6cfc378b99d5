/**
 * The chart's FlowSchema (values `leaderElection.flowSchema`, on by default): the release's Lease requests
 * go to the API server's `leader-election` priority level, as Kubernetes' own controllers' do, instead of
 * queueing with every service account's. Rendered with `helm template`, applied to the run's API server,
 * and checked on the API server's own answer: the priority level it files a request under is in the
 * `X-Kubernetes-PF-*-UID` headers of the response (a request impersonating the release's service account).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART, helm, type K8sObject, parseDocuments } from './packaging-helpers.ts';
import { createTestNamespace, kubeAccessFromProvided, kubectl } from './support/kube.ts';

let ns: string;
const applied: string[] = [];

beforeAll(async () => {
  ns = await createTestNamespace('chart-flowschema');
});
afterAll(async () => {
  for (const name of applied) await kubectl(['delete', 'flowschema', name, '--ignore-not-found']);
});

async function render(args: string[] = []): Promise<{ text: string; objects: K8sObject[] }> {
  const result = await helm(['template', 'fs', CHART, '--namespace', ns, ...args]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return { text: result.stdout, objects: parseDocuments(result.stdout) };
}

interface FlowSchema {
  metadata: { name: string };
  spec: {
    priorityLevelConfiguration: { name: string };
    rules: {
      subjects: { kind: string; serviceAccount: { name: string; namespace: string } }[];
      resourceRules: { apiGroups: string[]; resources: string[]; namespaces: string[] }[];
    }[];
  };
}

const flowSchemasOf = (objects: K8sObject[]) =>
  objects.filter((o) => o.kind === 'FlowSchema') as unknown as (K8sObject & FlowSchema)[];

/** The UIDs of the FlowSchema and priority level the API server filed a request under. */
async function classification(
  path: string,
  user: string,
): Promise<{ flowSchema: string; priorityLevel: string }> {
  const access = kubeAccessFromProvided();
  const connection = await access.connection();
  const response = await connection.dispatcher.request({
    origin: access.server,
    path,
    method: 'GET',
    headers: { ...connection.headers, 'impersonate-user': user },
  });
  await response.body.dump();
  return {
    flowSchema: String(response.headers['x-kubernetes-pf-flowschema-uid'] ?? ''),
    priorityLevel: String(response.headers['x-kubernetes-pf-prioritylevel-uid'] ?? ''),
  };
}

const uidOf = async (kind: string, name: string): Promise<string> => {
  const result = await kubectl(['get', kind, name, '-o', 'jsonpath={.metadata.uid}']);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

describe("the chart's FlowSchema for the release's Leases", () => {
  it("on by default: the release's service account, Leases of the release namespace, leader-election", async () => {
    const { objects } = await render();
    const [schema, ...more] = flowSchemasOf(objects);
    expect(more).toEqual([]);
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { template: { spec: { serviceAccountName: string } } };
    };
    expect(schema?.spec.priorityLevelConfiguration.name).toBe('leader-election');
    expect(schema?.spec.rules).toEqual([
      {
        subjects: [
          {
            kind: 'ServiceAccount',
            serviceAccount: { name: deployment.spec.template.spec.serviceAccountName, namespace: ns },
          },
        ],
        resourceRules: [
          {
            apiGroups: ['coordination.k8s.io'],
            resources: ['leases'],
            verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
            namespaces: [ns],
          },
        ],
      },
    ]);
  });

  it('leaderElection.flowSchema=false: none', async () => {
    expect(flowSchemasOf((await render(['--set', 'leaderElection.flowSchema=false'])).objects)).toEqual([]);
  });

  it("applied: the API server files the release's Lease requests under leader-election, nothing else", async () => {
    const { text, objects } = await render();
    const [schema] = flowSchemasOf(objects);
    if (!schema) throw new Error('no FlowSchema rendered');
    const account = schema.spec.rules[0]?.subjects[0]?.serviceAccount;
    const user = `system:serviceaccount:${account?.namespace}:${account?.name}`;
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
    const leaderElection = await uidOf('prioritylevelconfiguration', 'leader-election');

    // Before: the service accounts' schema, not leader-election (and the API server does say which).
    const before = await classification(leases, user);
    expect(before.flowSchema).not.toBe('');
    expect(before.priorityLevel).not.toBe(leaderElection);

    const apply = await kubectl(['apply', '--server-side', '-f', '-'], {
      input: text.split('\n---\n').find((d) => d.includes('kind: FlowSchema')) ?? '',
    });
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    applied.push(schema.metadata.name);
    const uid = await uidOf('flowschema', schema.metadata.name);

    expect(await classification(leases, user)).toEqual({ flowSchema: uid, priorityLevel: leaderElection });
    // Its other requests, and another account's Leases, stay where they were.
    expect((await classification(`/api/v1/namespaces/${ns}/configmaps`, user)).flowSchema).not.toBe(uid);
    expect((await classification(leases, `system:serviceaccount:${ns}:someone-else`)).flowSchema).not.toBe(
      uid,
    );
  });
});
