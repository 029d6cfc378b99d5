import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Container, VOLUME_SOURCE_KINDS, Volume as WireVolume } from '../controlplane/schemas.ts';
import type { CelRule } from './common.ts';
import { CORE_V1, readSnapshot } from './kubernetes/openapi.ts';
import { InitContainer, Sidecar, Volume } from './resource-shapes.ts';

const served = readSnapshot().schemas;
const kubeFields = (name: string) =>
  Object.keys((served[`${CORE_V1}${name}`] as { properties: object }).properties).sort();
const refusedFields = (schema: z.ZodType) =>
  ((z.globalRegistry.get(schema)?.['x-kubernetes-validations'] as CelRule[] | undefined) ?? [])
    .map((r) => /^!has\(self\.(\w+)\)$/.exec(r.rule)?.[1])
    .filter((f): f is string => f !== undefined)
    .sort();

describe('native shapes limited to the document', () => {
  it.each<[string, z.ZodObject, string, string[]]>([
    ['sidecars', Sidecar, 'Container', Object.keys(Container.shape)],
    [
      'initContainers',
      InitContainer,
      'Container',
      Object.keys(Container.shape).filter((f) => f !== 'restartPolicy'),
    ],
    ['volumes', Volume, 'Volume', Object.keys(WireVolume.shape)],
  ])(
    '%s declare every Kubernetes field and refuse those the document does not list',
    (_what, schema, kube, allowed) => {
      expect(Object.keys(schema.shape).sort()).toEqual(kubeFields(kube));
      expect(refusedFields(schema)).toEqual(kubeFields(kube).filter((f) => !allowed.includes(f)));
    },
  );

  it('the volume sources are the document Volume fields but its name', () => {
    expect(VOLUME_SOURCE_KINDS).toEqual([
      'configMap',
      'secret',
      'emptyDir',
      'persistentVolumeClaim',
      'nfs',
      'projected',
      'downwardAPI',
      'csi',
    ]);
  });
});
