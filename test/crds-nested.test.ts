/**
 * resourceSpec's nested shapes are Kubernetes' own (from the pinned API server's OpenAPI) with the
 * interface document's rules on top: every invalid shape in the table is refused with a message naming
 * the field, both by server-side apply and by a plain create, and `kubectl explain` prints Kubernetes'
 * descriptions. Each case was also accepted by the CRD before this change (see test/support/nested-shapes.ts).
 */
import { KubernetesObjectApi } from '@kubernetes/client-node';
import yaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { externalImageObject, type Obj, refusal } from './support/crd-objects.ts';
import { createTestNamespace, kubeConfigFromProvided, kubectl } from './support/kube.ts';
import { NESTED_CASES } from './support/nested-shapes.ts';

const RS = 'spec.sourceConfig.resourceSpec';

let objects: KubernetesObjectApi;
let namespace: string;

beforeAll(async () => {
  objects = KubernetesObjectApi.makeApiClient(kubeConfigFromProvided());
  namespace = await createTestNamespace('crds-nested');
});

/** Server-side apply, dry run, as `kubectl apply --server-side` and Argo CD's ServerSideApply do it. */
async function serverSideApply(o: Obj): Promise<string | undefined> {
  const result = await kubectl(['apply', '--server-side', '--dry-run=server', '-f', '-'], {
    input: yaml.dump(o),
  });
  return result.code === 0 ? undefined : result.stderr;
}

/** A plain create, dry run, with the API server's default field validation. */
const plainCreate = (o: Obj) => refusal(() => objects.create(o, undefined, 'All'));

describe('invalid nested shapes in resourceSpec', () => {
  it('covers at least 30 shapes', () => {
    expect(NESTED_CASES.length).toBeGreaterThanOrEqual(30);
  });

  it('the base object is valid', async () => {
    expect(await serverSideApply(externalImageObject(namespace, 'base'))).toBeUndefined();
    expect(await plainCreate(externalImageObject(namespace, 'base'))).toBeUndefined();
  });

  it.each(NESTED_CASES.map((c) => [c.what, c] as const))('refuses %s', async (_what, c) => {
    const o = externalImageObject(namespace, 'nested');
    c.mutate(o);
    const applied = await serverSideApply(o);
    expect(applied).toContain(`${RS}.${c.field}`);
    if (c.rule) expect(applied).toContain(c.rule);
    if (c.undeclared) return; // a plain create prunes it (with a warning) rather than refusing it
    const created = await plainCreate(o);
    expect(created).toContain(`${RS}.${c.field}`);
    if (c.rule) expect(created).toContain(c.rule);
  });
});

describe('kubectl explain on nested native fields', () => {
  it.each([
    [
      'agentdeployment.spec.sourceConfig.resourceSpec.sidecars.securityContext.runAsNonRoot',
      'Indicates that the container must run as a non-root user.',
    ],
    [
      'agentdeployment.spec.sourceConfig.resourceSpec.volumes.configMap.defaultMode',
      'defaultMode is optional: mode bits used to set permissions on created files by default.',
    ],
    [
      'agentdeployment.spec.sourceConfig.resourceSpec.initContainers.env.valueFrom.secretKeyRef',
      'Selects a key of a secret in the pod',
    ],
  ])('%s prints Kubernetes’ description', async (path, description) => {
    // The API server publishes a new CRD's OpenAPI a little after the CRD is established.
    let output = '';
    for (let attempt = 0; attempt < 30 && !output.includes(description); attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 1000));
      const result = await kubectl(['explain', path]);
      output = (result.stdout + result.stderr).replace(/\s+/g, ' ');
    }
    expect(output).toContain(description);
  });
});
