import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTPValidationError } from '../controlplane/schemas.ts';
import { type Simulator, startSimulator } from './index.ts';
import { call, externalImageCreate } from './test-support.ts';

let sim: Simulator;
let counter = 0;

beforeAll(async () => {
  sim = await startSimulator({ revisionStepMs: 60_000 });
});
afterAll(async () => {
  await sim.close();
});

const RS = ['body', 'source_config', 'resource_spec'];
const VOLUME = { name: 'scratch', emptyDir: {} };
const SIDECAR = { name: 'shipper', image: 'fluent/fluent-bit:3.2' };

function create(resourceSpec: Record<string, unknown>) {
  return call(sim, 'POST', '/v2/deployments', {
    body: externalImageCreate(`shapes-${++counter}`, { source_config: { resource_spec: resourceSpec } }),
  });
}

describe('the document shape rules inside resource_spec', () => {
  it.each<[string, Record<string, unknown>, (string | number)[], string]>([
    [
      'a volume name that is no DNS label',
      { volumes: [{ name: 'Scratch', emptyDir: {} }] },
      [...RS, 'volumes', 0, 'name'],
      'value_error',
    ],
    [
      'duplicate volume names',
      { volumes: [VOLUME, { name: 'scratch', secret: {} }] },
      [...RS, 'volumes', 1, 'name'],
      'value_error',
    ],
    [
      'a volume source the document does not list',
      { volumes: [{ name: 'host', hostPath: { path: '/' } }] },
      [...RS, 'volumes', 0, 'hostPath'],
      'extra_forbidden',
    ],
    [
      'a mount naming no volume',
      { volumes: [VOLUME], volume_mounts: [{ name: 'cache', mountPath: '/c' }] },
      [...RS, 'volume_mounts', 0, 'name'],
      'value_error',
    ],
    [
      'a mount field the document does not list',
      {
        volumes: [VOLUME],
        volume_mounts: [{ name: 'scratch', mountPath: '/s', recursiveReadOnly: 'Enabled' }],
      },
      [...RS, 'volume_mounts', 0, 'recursiveReadOnly'],
      'extra_forbidden',
    ],
    [
      'a sidecar name that is no DNS label',
      { sidecars: [{ ...SIDECAR, name: 'log_shipper' }] },
      [...RS, 'sidecars', 0, 'name'],
      'value_error',
    ],
    [
      'a container field the document does not list',
      { sidecars: [{ ...SIDECAR, livenessProbe: {} }] },
      [...RS, 'sidecars', 0, 'livenessProbe'],
      'extra_forbidden',
    ],
    [
      'restartPolicy on an init container',
      { init_containers: [{ ...SIDECAR, restartPolicy: 'Always' }] },
      [...RS, 'init_containers', 0, 'restartPolicy'],
      'value_error',
    ],
    [
      'an env name that is no C identifier',
      { sidecars: [{ ...SIDECAR, env: [{ name: 'LOG-LEVEL', value: 'x' }] }] },
      [...RS, 'sidecars', 0, 'env', 0, 'name'],
      'value_error',
    ],
    [
      'valueFrom with a non-empty value',
      {
        init_containers: [
          {
            ...SIDECAR,
            env: [{ name: 'POD', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          },
        ],
      },
      [...RS, 'init_containers', 0, 'env', 0, 'valueFrom'],
      'value_error',
    ],
    [
      'a sidecar mount naming no volume',
      { sidecars: [{ ...SIDECAR, volumeMounts: [{ name: 'cache', mountPath: '/c' }] }] },
      [...RS, 'sidecars', 0, 'volumeMounts', 0, 'name'],
      'value_error',
    ],
  ])('422 for %s, at the field', async (_what, resourceSpec, loc, type) => {
    const answer = await create(resourceSpec);
    expect(answer.status).toBe(422);
    const { detail } = HTTPValidationError.parse(answer.body);
    expect(detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it('accepts the shapes the document allows', async () => {
    const answer = await create({
      volumes: [VOLUME, { name: 'settings', configMap: { name: 'settings' } }],
      volume_mounts: [{ name: 'scratch', mountPath: '/scratch' }],
      init_containers: [{ name: 'init', image: 'busybox:1.36' }],
      sidecars: [
        {
          ...SIDECAR,
          restartPolicy: 'Always',
          env: [{ name: 'POD', value: '', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          volumeMounts: [{ name: 'settings', mountPath: '/etc/settings', readOnly: true }],
        },
      ],
    });
    expect(answer.status).toBe(201);
  });
});
