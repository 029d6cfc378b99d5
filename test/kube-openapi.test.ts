/**
 * src/api/kubernetes/core-v1.openapi.json is what the pinned kube-apiserver serves: the CRDs embed
 * Kubernetes' own schemas from it, so a stale snapshot would teach and validate a Kubernetes that is not
 * the one we run. Run `make kube-openapi`, then `make generate`, when this fails.
 */
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, readSnapshot, snapshotOf } from '../src/api/kubernetes/openapi.ts';
import { kubectl } from './support/kube.ts';

async function getRaw(path: string): Promise<unknown> {
  const result = await kubectl(['get', '--raw', path]);
  if (result.code !== 0) throw new Error(`GET ${path}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe('the Kubernetes OpenAPI snapshot', () => {
  it('equals what the pinned API server serves (run `make kube-openapi` when this fails)', async () => {
    const version = (await getRaw('/version')) as { gitVersion: string };
    const served = snapshotOf(await getRaw(OPENAPI_PATH), version.gitVersion);
    const snapshot = readSnapshot();
    expect(snapshot.kubernetesVersion).toBe(served.kubernetesVersion);
    expect(Object.keys(snapshot.schemas)).toEqual(Object.keys(served.schemas));
    expect(snapshot).toEqual(served);
  });
});
