/**
 * The resourceSpec of an external_image AgentDeployment (spec.sourceConfig.resourceSpec): replicas,
 * compute, volumes and containers, with the CEL rules that refuse what the control plane marks do not
 * use and mounts that name no volume. Containers and volumes are resource-shapes.ts's.
 */
import { z } from 'zod';
import { type CelRule, cel, celUnique, localRef, stringMap } from './common.ts';
import { containers, MAX_VOLUMES, RS, Volume, volumeMounts } from './resource-shapes.ts';

function cpuRange(field: string, max: number) {
  return z.number().meta(
    cel({
      rule: `self >= 0.1 && self <= ${max.toFixed(1)}`,
      message: `${RS}.${field} must be between 0.1 and ${max}`,
    }),
  );
}

const count = () => z.int().min(0);
const megabytes = () => z.int().min(0);

/**
 * Declared only so that CEL can refuse them by name; otherwise pruning would drop them silently. Each
 * field carries its own rule, which runs only when the field is there: a `!has(self.x)` on resourceSpec
 * would run on every write of the object (status writes too), each building a map of resourceSpec's
 * properties in the API server.
 */
const FORBIDDEN_RESOURCE_FIELDS = [
  'orchestratorCpu',
  'orchestratorCpuLimit',
  'orchestratorMemoryMb',
  'orchestratorMemoryLimitMb',
  'orchestratorMinScale',
  'orchestratorMaxScale',
  'executorCpu',
  'executorCpuLimit',
  'executorMemoryMb',
  'executorMemoryLimitMb',
] as const;

const forbiddenFields = Object.fromEntries(
  FORBIDDEN_RESOURCE_FIELDS.map((field) => [
    field,
    z
      .number()
      .meta(
        cel({
          rule: 'false',
          message: `${RS}.${field} must not be set: the control plane marks it do not use`,
        }),
      )
      .optional()
      .describe('Marked "do not use" by the control plane: refused at admission.'),
  ]),
) as Record<(typeof FORBIDDEN_RESOURCE_FIELDS)[number], z.ZodOptional<z.ZodNumber>>;

function mountsNameVolumes(list: string): string {
  return `${list}.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name))`;
}

const resourceSpecRules: CelRule[] = [
  {
    rule: `!has(self.volumeMounts) || ${mountsNameVolumes('self.volumeMounts')}`,
    message: `${RS}.volumeMounts[].name must name a volume in ${RS}.volumes`,
    fieldPath: '.volumeMounts',
  },
  ...(['initContainers', 'sidecars'] as const).map((field) => ({
    rule: `!has(self.${field}) || self.${field}.all(c, !has(c.volumeMounts) || ${mountsNameVolumes('c.volumeMounts')})`,
    message: `${RS}.${field}[].volumeMounts[].name must name a volume in ${RS}.volumes`,
    fieldPath: `.${field}`,
  })),
];

export const ResourceSpec = z
  .object({
    minScale: count().optional().describe('Minimum replica count of the deployment.'),
    maxScale: count().optional().describe('Maximum replica count of the deployment.'),
    cpu: cpuRange('cpu', 8)
      .optional()
      .describe(
        'CPU request in cores per replica, 0.1 to 8, rounded to 1 decimal. The limit defaults to 2x.',
      ),
    cpuLimit: cpuRange('cpuLimit', 16)
      .optional()
      .describe('CPU limit in cores per replica, 0.1 to 16, rounded to 1 decimal. Defaults to 2x cpu.'),
    memoryMb: megabytes().optional().describe('Memory request in MB per replica. The limit defaults to 2x.'),
    memoryLimitMb: megabytes()
      .optional()
      .describe('Memory limit in MB per replica. Defaults to 2x memoryMb.'),
    queueMinScale: count()
      .optional()
      .describe('Minimum replica count of the queue deployment. Defaults to minScale.'),
    queueMaxScale: count()
      .optional()
      .describe('Maximum replica count of the queue deployment. Defaults to maxScale.'),
    queueCpu: cpuRange('queueCpu', 8)
      .optional()
      .describe('CPU request of the queue deployment, 0.1 to 8, rounded to 1 decimal. Defaults to cpu.'),
    queueCpuLimit: cpuRange('queueCpuLimit', 16)
      .optional()
      .describe(
        'CPU limit of the queue deployment, 0.1 to 16, rounded to 1 decimal. Defaults to 2x queueCpu.',
      ),
    queueMemoryMb: megabytes()
      .optional()
      .describe('Memory request of the queue deployment in MB. Defaults to memoryMb.'),
    queueMemoryLimitMb: megabytes()
      .optional()
      .describe('Memory limit of the queue deployment in MB. Defaults to 2x queueMemoryMb.'),
    ...forbiddenFields,
    cacheMemoryMb: megabytes().optional().describe('Memory in MB of the key-value cache deployment.'),
    labels: stringMap().optional().describe('Extra labels on the resources the control plane creates.'),
    annotations: stringMap()
      .optional()
      .describe('Extra annotations on the resources the control plane creates.'),
    serviceAccountName: z
      .string()
      .max(253)
      .optional()
      .describe('Service account of the pods; must already exist in the target namespace.'),
    imagePullSecrets: z
      .array(localRef('Name of a registry-credentials Secret in the target namespace.'))
      .max(32)
      .optional()
      .describe('Registry-credentials Secrets in the target namespace (core/v1 LocalObjectReference).'),
    volumes: z
      .array(Volume)
      .max(MAX_VOLUMES)
      .meta(cel(celUnique('name', `${RS}.volumes[].name must be unique`)))
      .optional()
      .describe(
        'Volumes mountable by the containers of the pod (core/v1 Volume, limited to the listed sources).',
      ),
    volumeMounts: volumeMounts(
      `${RS}.volumeMounts`,
      'Mounts into the main container; each names a volume in volumes (core/v1 VolumeMount).',
    ).optional(),
    initContainers: containers(
      'initContainers',
      'Containers that run to completion before the main container starts (core/v1 Container, limited).',
    ).optional(),
    sidecars: containers(
      'sidecars',
      'Containers that run alongside the main container (core/v1 Container, limited).',
    ).optional(),
    dbCpu: z.number().min(0).optional().describe('Database CPU request in cores. The limit defaults to 2x.'),
    dbCpuLimit: z.number().min(0).optional().describe('Database CPU limit in cores. Defaults to 2x dbCpu.'),
    dbMemoryMb: megabytes().optional().describe('Database memory request in MB. The limit defaults to 2x.'),
    dbMemoryLimitMb: megabytes()
      .optional()
      .describe('Database memory limit in MB. Defaults to 2x dbMemoryMb.'),
    dbStorageGi: z.int().min(0).optional().describe('Database storage in GiB.'),
    dbMaxConnections: z.int().min(0).optional().describe('Maximum number of database connections.'),
  })
  .meta(cel(...resourceSpecRules));
export type ResourceSpec = z.infer<typeof ResourceSpec>;
