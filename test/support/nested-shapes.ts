// Invalid nested shapes inside resourceSpec: each refused by the generated CRD with a message naming the
// field (test/crds-nested.test.ts), each accepted by the CRD before resourceSpec took Kubernetes' own
// schemas, whose free-form objects kept anything. Checked once against that CRD (main's crds/ at
// 5f9c199): a plain create accepted all 48 cases; server-side apply accepted the 33 that do not add a
// field the old schema lacked (the other 15 it refused as "field not declared in schema").
import { initContainer, type Mutate, type Obj, rs, sidecar } from './crd-objects.ts';

export type NestedCase = {
  what: string;
  mutate: Mutate;
  /** The field the refusal names, below spec.sourceConfig.resourceSpec, with list indexes. */
  field: string;
  /** Text of the rule's own message, where a CEL rule (not the schema) refuses it. */
  rule?: string;
  /**
   * A misspelt field inside a Kubernetes shape: the schema does not declare it, so server-side apply
   * (and kubectl's strict validation) refuses it; a plain create with the server's default field
   * validation prunes it with a warning instead.
   */
  undeclared?: boolean;
};

const setVolume = (o: Obj, v: Record<string, unknown>) => {
  rs(o).volumes = [{ name: 'scratch', ...v }];
};
const NOT_A_SOURCE = 'is not a volume source the control plane accepts';
const NOT_A_CONTAINER_FIELD = 'is not a container field the control plane accepts';
const EXACTLY_ONE = 'must set exactly one volume source';

export const NESTED_CASES: NestedCase[] = [
  // -- typos inside Kubernetes shapes --
  {
    what: 'a misspelt configMap field',
    mutate: (o) => setVolume(o, { configMap: { nmae: 'settings' } }),
    field: 'volumes[0].configMap.nmae',
    undeclared: true,
  },
  {
    what: 'a misspelt securityContext field',
    mutate: (o) => {
      sidecar(o).securityContext = { runAsNonroot: true };
    },
    field: 'sidecars[0].securityContext.runAsNonroot',
    undeclared: true,
  },
  {
    what: 'a misspelt valueFrom source',
    mutate: (o) => {
      sidecar(o).env = [{ name: 'TOKEN', valueFrom: { secretKeyref: { name: 's', key: 'k' } } }];
    },
    field: 'sidecars[0].env[0].valueFrom.secretKeyref',
    undeclared: true,
  },
  {
    what: 'a misspelt envFrom prefix',
    mutate: (o) => {
      sidecar(o).envFrom = [{ configMapRef: { name: 'c' }, prefx: 'APP_' }];
    },
    field: 'sidecars[0].envFrom[0].prefx',
    undeclared: true,
  },
  {
    what: 'a misspelt capabilities list',
    mutate: (o) => {
      initContainer(o).securityContext = { capabilities: { drpo: ['ALL'] } };
    },
    field: 'initContainers[0].securityContext.capabilities.drpo',
    undeclared: true,
  },
  {
    what: 'a misspelt projected source',
    mutate: (o) => setVolume(o, { projected: { sources: [{ secrt: { name: 's' } }] } }),
    field: 'volumes[0].projected.sources[0].secrt',
    undeclared: true,
  },
  {
    what: 'a misspelt emptyDir field',
    mutate: (o) => setVolume(o, { emptyDir: { sizelimit: '1Gi' } }),
    field: 'volumes[0].emptyDir.sizelimit',
    undeclared: true,
  },
  {
    what: 'a misspelt seLinuxOptions field',
    mutate: (o) => {
      sidecar(o).securityContext = { seLinuxOptions: { levle: 's0:c123,c456' } };
    },
    field: 'sidecars[0].securityContext.seLinuxOptions.levle',
    undeclared: true,
  },
  // -- the document's volume rules --
  {
    what: 'a hostPath volume',
    mutate: (o) => setVolume(o, { emptyDir: {}, hostPath: { path: '/var/run' } }),
    field: 'volumes[0].hostPath',
    rule: NOT_A_SOURCE,
  },
  {
    what: 'a gitRepo volume',
    mutate: (o) => setVolume(o, { emptyDir: {}, gitRepo: { repository: 'https://example.com/r' } }),
    field: 'volumes[0].gitRepo',
    rule: NOT_A_SOURCE,
  },
  {
    what: 'an ephemeral volume',
    mutate: (o) => setVolume(o, { emptyDir: {}, ephemeral: {} }),
    field: 'volumes[0].ephemeral',
    rule: NOT_A_SOURCE,
  },
  {
    what: 'a volume without a source',
    mutate: (o) => setVolume(o, {}),
    field: 'volumes[0]',
    rule: EXACTLY_ONE,
  },
  {
    what: 'a volume with two sources',
    mutate: (o) => setVolume(o, { emptyDir: {}, configMap: { name: 'settings' } }),
    field: 'volumes[0]',
    rule: EXACTLY_ONE,
  },
  // -- Kubernetes' own types, required fields and enums inside the volume sources --
  {
    what: 'a persistentVolumeClaim without claimName',
    mutate: (o) => setVolume(o, { persistentVolumeClaim: { readOnly: true } }),
    field: 'volumes[0].persistentVolumeClaim.claimName',
  },
  {
    what: 'an nfs volume without server',
    mutate: (o) => setVolume(o, { nfs: { path: '/exports' } }),
    field: 'volumes[0].nfs.server',
  },
  {
    what: 'a csi volume without driver',
    mutate: (o) => setVolume(o, { csi: { readOnly: true } }),
    field: 'volumes[0].csi.driver',
  },
  {
    what: 'a secret volume item without path',
    mutate: (o) => setVolume(o, { secret: { secretName: 's', items: [{ key: 'k' }] } }),
    field: 'volumes[0].secret.items[0].path',
  },
  {
    what: 'a configMap defaultMode that is no integer',
    mutate: (o) => setVolume(o, { configMap: { name: 'settings', defaultMode: 'rw-r--r--' } }),
    field: 'volumes[0].configMap.defaultMode',
  },
  {
    what: 'an emptyDir sizeLimit that is no quantity',
    mutate: (o) => setVolume(o, { emptyDir: { sizeLimit: 'big' } }),
    field: 'volumes[0].emptyDir.sizeLimit',
  },
  {
    what: 'a downwardAPI item without path',
    mutate: (o) => setVolume(o, { downwardAPI: { items: [{ fieldRef: { fieldPath: 'metadata.name' } }] } }),
    field: 'volumes[0].downwardAPI.items[0].path',
  },
  {
    what: 'a secret volume optional flag that is no boolean',
    mutate: (o) => setVolume(o, { secret: { secretName: 's', optional: 'yes' } }),
    field: 'volumes[0].secret.optional',
  },
  {
    what: 'a configMap item without key',
    mutate: (o) => setVolume(o, { configMap: { name: 'settings', items: [{ path: 'app.yaml' }] } }),
    field: 'volumes[0].configMap.items[0].key',
  },
  {
    what: 'a projected serviceAccountToken without path',
    mutate: (o) => setVolume(o, { projected: { sources: [{ serviceAccountToken: { audience: 'api' } }] } }),
    field: 'volumes[0].projected.sources[0].serviceAccountToken.path',
  },
  {
    what: 'a downwardAPI resourceFieldRef without resource',
    mutate: (o) =>
      setVolume(o, { downwardAPI: { items: [{ path: 'cpu', resourceFieldRef: { containerName: 'x' } }] } }),
    field: 'volumes[0].downwardAPI.items[0].resourceFieldRef.resource',
  },
  {
    what: 'csi volumeAttributes that are no strings',
    mutate: (o) => setVolume(o, { csi: { driver: 'csi.example.com', volumeAttributes: { size: 10 } } }),
    field: 'volumes[0].csi.volumeAttributes.size',
  },
  // -- volume mounts --
  {
    what: 'an unknown mountPropagation',
    mutate: (o) => {
      (rs(o).volumeMounts as Record<string, unknown>[])[0] = {
        name: 'scratch',
        mountPath: '/scratch',
        mountPropagation: 'Sideways',
      };
    },
    field: 'volumeMounts[0].mountPropagation',
  },
  {
    what: 'a recursiveReadOnly mount',
    mutate: (o) => {
      sidecar(o).volumeMounts = [{ name: 'scratch', mountPath: '/s', recursiveReadOnly: 'Enabled' }];
    },
    field: 'sidecars[0].volumeMounts[0].recursiveReadOnly',
    rule: 'is not a volume mount field the control plane accepts',
  },
  // -- the document's container fields --
  {
    what: 'restartPolicy on an init container',
    mutate: (o) => {
      initContainer(o).restartPolicy = 'Always';
    },
    field: 'initContainers[0].restartPolicy',
    rule: 'is allowed on sidecars only',
  },
  ...(
    [
      ['sidecars', 'livenessProbe', { tcpSocket: { port: 8080 } }],
      ['sidecars', 'readinessProbe', { httpGet: { path: '/ok', port: 8080 } }],
      ['initContainers', 'startupProbe', { exec: { command: ['true'] } }],
      ['sidecars', 'ports', [{ containerPort: 8080 }]],
      ['sidecars', 'lifecycle', { preStop: { sleep: { seconds: 5 } } }],
      ['sidecars', 'tty', true],
      ['initContainers', 'stdin', true],
      ['sidecars', 'terminationMessagePolicy', 'FallbackToLogsOnError'],
      ['sidecars', 'volumeDevices', [{ name: 'scratch', devicePath: '/dev/x' }]],
      ['sidecars', 'resizePolicy', [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }]],
    ] as const
  ).map(
    ([list, field, value]): NestedCase => ({
      what: `${field} on a container`,
      mutate: (o) => {
        const c = list === 'sidecars' ? sidecar(o) : initContainer(o);
        c[field] = value;
      },
      field: `${list}[0].${field}`,
      rule: NOT_A_CONTAINER_FIELD,
    }),
  ),
  {
    what: 'resource claims',
    mutate: (o) => {
      sidecar(o).resources = { claims: [{ name: 'gpu' }] };
    },
    field: 'sidecars[0].resources.claims',
    rule: 'is not a resources field the control plane accepts',
  },
  // -- securityContext, env and envFrom as Kubernetes types them --
  {
    what: 'a runAsUser that is no integer',
    mutate: (o) => {
      sidecar(o).securityContext = { runAsUser: 'root' };
    },
    field: 'sidecars[0].securityContext.runAsUser',
  },
  {
    what: 'an allowPrivilegeEscalation that is no boolean',
    mutate: (o) => {
      sidecar(o).securityContext = { allowPrivilegeEscalation: 'no' };
    },
    field: 'sidecars[0].securityContext.allowPrivilegeEscalation',
  },
  {
    what: 'an unknown procMount',
    mutate: (o) => {
      initContainer(o).securityContext = { procMount: 'Masked' };
    },
    field: 'initContainers[0].securityContext.procMount',
  },
  {
    what: 'capabilities.add that is no list',
    mutate: (o) => {
      sidecar(o).securityContext = { capabilities: { add: 'NET_ADMIN' } };
    },
    field: 'sidecars[0].securityContext.capabilities.add',
  },
  {
    what: 'an unknown seccompProfile type',
    mutate: (o) => {
      sidecar(o).securityContext = { seccompProfile: { type: 'Strict' } };
    },
    field: 'sidecars[0].securityContext.seccompProfile.type',
  },
  {
    what: 'a fieldRef without fieldPath',
    mutate: (o) => {
      sidecar(o).env = [{ name: 'POD', valueFrom: { fieldRef: {} } }];
    },
    field: 'sidecars[0].env[0].valueFrom.fieldRef.fieldPath',
  },
  {
    what: 'a configMapKeyRef without key',
    mutate: (o) => {
      initContainer(o).env = [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings' } } }];
    },
    field: 'initContainers[0].env[0].valueFrom.configMapKeyRef.key',
  },
  {
    what: 'an envFrom secretRef optional flag that is no boolean',
    mutate: (o) => {
      sidecar(o).envFrom = [{ secretRef: { name: 's', optional: 'maybe' } }];
    },
    field: 'sidecars[0].envFrom[0].secretRef.optional',
  },
  {
    what: 'a resourceFieldRef divisor that is no quantity',
    mutate: (o) => {
      sidecar(o).env = [
        { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: 'a lot' } } },
      ];
    },
    field: 'sidecars[0].env[0].valueFrom.resourceFieldRef.divisor',
  },
];
