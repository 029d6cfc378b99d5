/**
 * The control plane's shapes, exactly as the interface document names them (snake_case on the wire).
 * Response shapes are `loose`: unknown fields the service adds later are kept, not fatal. Request shapes
 * are `strict`: the simulator refuses a field the document does not list.
 */
import { z } from 'zod';

export const Source = z.enum(['repo_host', 'external_image']);
export type Source = z.infer<typeof Source>;

export const DeploymentType = z.enum(['dev_free', 'dev', 'prod']);
export type DeploymentType = z.infer<typeof DeploymentType>;

/** The document's values plus AWAITING_FINAL_DELETE, seen while a deletion completes. */
export const DeploymentStatus = z.enum([
  'AWAITING_DATABASE',
  'READY',
  'UNUSED',
  'AWAITING_DELETE',
  'AWAITING_FINAL_DELETE',
  'UNKNOWN',
]);
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;

export const RevisionStatus = z.enum([
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'DEPLOYED',
  'SKIPPED',
  'INTERRUPTED',
  'UNKNOWN',
]);
export type RevisionStatus = z.infer<typeof RevisionStatus>;

/**
 * A status as read: a value the client does not know is kept as the string the platform sent (and
 * treated as in progress), so one new value never fails a whole read or listing.
 */
function tolerant<T extends string>(known: z.ZodEnum<{ [K in T]: K }>) {
  return z.union([known, z.string()]);
}
export const ObservedRevisionStatus = tolerant(RevisionStatus);
export type ObservedRevisionStatus = RevisionStatus | (string & {});
export const ObservedDeploymentStatus = tolerant(DeploymentStatus);
export type ObservedDeploymentStatus = DeploymentStatus | (string & {});

export function isKnownRevisionStatus(status: string): status is RevisionStatus {
  return (RevisionStatus.options as readonly string[]).includes(status);
}

export const REVISION_SUCCEEDED: ReadonlySet<string> = new Set<RevisionStatus>(['DEPLOYED', 'SKIPPED']);
/** Terminal failures of a revision. */
export const REVISION_FAILED: ReadonlySet<string> = new Set<RevisionStatus>([
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
]);

// ---- supporting shapes (camelCase inside, as the document writes them) ----

const FreeForm = z.record(z.string(), z.unknown());

export const LocalObjectReference = z.object({ name: z.string() }).loose();
export type LocalObjectReference = z.infer<typeof LocalObjectReference>;

export const Volume = z
  .object({
    name: z.string(),
    configMap: FreeForm.optional(),
    secret: FreeForm.optional(),
    emptyDir: FreeForm.optional(),
    persistentVolumeClaim: FreeForm.optional(),
    nfs: FreeForm.optional(),
    projected: FreeForm.optional(),
    downwardAPI: FreeForm.optional(),
    csi: FreeForm.optional(),
  })
  .loose();
export type Volume = z.infer<typeof Volume>;

/** The volume sources the document allows: every field of Volume but its name. */
export const VOLUME_SOURCE_KINDS = Object.keys(Volume.shape).filter((field) => field !== 'name');

export const VolumeMount = z
  .object({
    name: z.string(),
    mountPath: z.string(),
    subPath: z.string().optional(),
    mountPropagation: z.string().optional(),
    readOnly: z.boolean().optional(),
    subPathExpr: z.string().optional(),
  })
  .loose();
export type VolumeMount = z.infer<typeof VolumeMount>;

export const EnvVar = z
  .object({
    name: z.string(),
    value: z.string().nullable().optional(),
    valueFrom: FreeForm.nullable().optional(),
  })
  .loose();
export type EnvVar = z.infer<typeof EnvVar>;

export const ResourceRequirements = z
  .object({
    limits: z.record(z.string(), z.string()).nullable().optional(),
    requests: z.record(z.string(), z.string()).nullable().optional(),
  })
  .loose();
export type ResourceRequirements = z.infer<typeof ResourceRequirements>;

export const ImagePullPolicy = z.enum(['Always', 'Never', 'IfNotPresent']);
export const ContainerRestartPolicy = z.enum(['Always', 'OnFailure']);

export const Container = z
  .object({
    name: z.string(),
    image: z.string(),
    imagePullPolicy: ImagePullPolicy.optional(),
    command: z.array(z.string()).optional(),
    args: z.array(z.string()).optional(),
    workingDir: z.string().optional(),
    env: z.array(EnvVar).optional(),
    envFrom: z.array(FreeForm).optional(),
    resources: ResourceRequirements.optional(),
    volumeMounts: z.array(VolumeMount).optional(),
    securityContext: FreeForm.optional(),
    restartPolicy: ContainerRestartPolicy.optional(),
  })
  .loose();
export type Container = z.infer<typeof Container>;

// ---- ResourceSpec ----

const int = () => z.number().int().nullable().optional();
const num = () => z.number().nullable().optional();

/** Fields the document marks "do not use": never sent, refused by the simulator and the CRD. */
export const DO_NOT_USE_RESOURCE_FIELDS = [
  'orchestrator_cpu',
  'orchestrator_cpu_limit',
  'orchestrator_memory_mb',
  'orchestrator_memory_limit_mb',
  'orchestrator_min_scale',
  'orchestrator_max_scale',
  'executor_cpu',
  'executor_cpu_limit',
  'executor_memory_mb',
  'executor_memory_limit_mb',
] as const;

const resourceSpecShape = {
  min_scale: int(),
  max_scale: int(),
  cpu: num(),
  cpu_limit: num(),
  memory_mb: int(),
  memory_limit_mb: int(),
  queue_min_scale: int(),
  queue_max_scale: int(),
  queue_cpu: num(),
  queue_cpu_limit: num(),
  queue_memory_mb: int(),
  queue_memory_limit_mb: int(),
  orchestrator_cpu: num(),
  orchestrator_cpu_limit: num(),
  orchestrator_memory_mb: int(),
  orchestrator_memory_limit_mb: int(),
  orchestrator_min_scale: int(),
  orchestrator_max_scale: int(),
  executor_cpu: num(),
  executor_cpu_limit: num(),
  executor_memory_mb: int(),
  executor_memory_limit_mb: int(),
  cache_memory_mb: int(),
  labels: z.record(z.string(), z.string()).nullable().optional(),
  annotations: z.record(z.string(), z.string()).nullable().optional(),
  service_account_name: z.string().nullable().optional(),
  image_pull_secrets: z.array(LocalObjectReference).nullable().optional(),
  volumes: z.array(Volume).nullable().optional(),
  volume_mounts: z.array(VolumeMount).nullable().optional(),
  init_containers: z.array(Container).nullable().optional(),
  sidecars: z.array(Container).nullable().optional(),
  db_cpu: num(),
  db_cpu_limit: num(),
  db_memory_mb: int(),
  db_memory_limit_mb: int(),
  db_storage_gi: int(),
  db_max_connections: int(),
};

/** Request and response forms have identical fields. */
export const ResourceSpec = z.object(resourceSpecShape).loose();
export type ResourceSpec = z.infer<typeof ResourceSpec>;
export const ResourceSpecRequest = z.object(resourceSpecShape).strict();

// ---- SourceConfig / SourceRevisionConfig ----

export const ListenerConfig = z.object({ k8s_namespace: z.string().nullable().optional() }).loose();
export type ListenerConfig = z.infer<typeof ListenerConfig>;

const sourceConfigShape = {
  integration_id: z.string().nullable().optional(),
  repo_url: z.string().nullable().optional(),
  deployment_type: DeploymentType.nullable().optional(),
  build_on_push: z.boolean().nullable().optional(),
  custom_url: z.string().nullable().optional(),
  listener_id: z.string().nullable().optional(),
  install_command: z.string().nullable().optional(),
  build_command: z.string().nullable().optional(),
};

export const SourceConfig = z
  .object({
    ...sourceConfigShape,
    resource_spec: ResourceSpec.nullable().optional(),
    listener_config: ListenerConfig.nullable().optional(),
  })
  .loose();
export type SourceConfig = z.infer<typeof SourceConfig>;

export const SourceConfigRequest = z
  .object({
    ...sourceConfigShape,
    resource_spec: ResourceSpecRequest.nullable().optional(),
    listener_config: z
      .object({ k8s_namespace: z.string().nullable().optional() })
      .strict()
      .nullable()
      .optional(),
  })
  .strict();
export type SourceConfigRequest = z.infer<typeof SourceConfigRequest>;

export const SourceRevisionConfig = z
  .object({
    repo_ref: z.string().nullable().optional(),
    graph_config_path: z.string().nullable().optional(),
    image_uri: z.string().nullable().optional(),
    repo_commit_sha: z.string().nullable().optional(),
  })
  .loose();
export type SourceRevisionConfig = z.infer<typeof SourceRevisionConfig>;

/** The patch form has no repo_commit_sha (response only). */
export const SourceRevisionConfigRequest = z
  .object({
    repo_ref: z.string().nullable().optional(),
    graph_config_path: z.string().nullable().optional(),
    image_uri: z.string().nullable().optional(),
  })
  .strict();
export type SourceRevisionConfigRequest = z.infer<typeof SourceRevisionConfigRequest>;

export const Secret = z.object({ name: z.string(), value: z.string() });
export type Secret = z.infer<typeof Secret>;

// ---- Deployment ----

/**
 * Ids the operator keeps in status, which allows 64 characters: a longer one is a malformed answer
 * (an id cut short would name something else), refused here rather than by every status write after.
 * The platform makes them (uuids): printable ASCII, or they are not ids (they reach conditions).
 */
const StatusId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[\x21-\x7e]+$/);

export const Deployment = z
  .object({
    id: StatusId,
    name: z.string(),
    source: Source,
    source_config: SourceConfig,
    source_revision_config: SourceRevisionConfig,
    secrets: z.array(Secret.loose()),
    created_at: z.string(),
    updated_at: z.string(),
    status: ObservedDeploymentStatus,
    latest_revision_id: StatusId.nullable(),
    active_revision_id: StatusId.nullable(),
    image_version: z.string().nullable().optional(),
  })
  .loose();
export type Deployment = z.infer<typeof Deployment>;

export const DeploymentCreateRequest = z
  .object({
    name: z.string(),
    source: Source,
    source_config: SourceConfigRequest,
    source_revision_config: SourceRevisionConfigRequest,
    secrets: z.array(Secret.strict()),
  })
  .strict();
export type DeploymentCreateRequest = z.infer<typeof DeploymentCreateRequest>;

export const DeploymentPatchRequest = z
  .object({
    source_config: SourceConfigRequest.nullable().optional(),
    source_revision_config: SourceRevisionConfigRequest.nullable().optional(),
    secrets: z.array(Secret.strict()).nullable().optional(),
  })
  .strict();
export type DeploymentPatchRequest = z.infer<typeof DeploymentPatchRequest>;

export const DeploymentList = z.object({ resources: z.array(Deployment), offset: z.number().int() }).loose();
export type DeploymentList = z.infer<typeof DeploymentList>;

// ---- Revision ----

export const Revision = z
  .object({
    id: StatusId,
    status: RevisionStatus,
    source_revision_config: SourceRevisionConfig,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .loose();
export type Revision = z.infer<typeof Revision>;

export const RevisionList = z.object({ resources: z.array(Revision), offset: z.number().int() }).loose();
export type RevisionList = z.infer<typeof RevisionList>;

// ---- Listeners (shape not shown by the document: id is relied on, the rest is kept) ----

export const Listener = z.object({ id: z.string() }).loose();
export type Listener = z.infer<typeof Listener>;

export const ListenerList = z.object({ resources: z.array(Listener), offset: z.number().int() }).loose();
export type ListenerList = z.infer<typeof ListenerList>;

// ---- Errors ----

export const ValidationError = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])),
    msg: z.string(),
    type: z.string(),
  })
  .loose();
export type ValidationError = z.infer<typeof ValidationError>;

export const HTTPValidationError = z.object({ detail: z.array(ValidationError) }).loose();
export type HTTPValidationError = z.infer<typeof HTTPValidationError>;

export const DetailError = z.object({ detail: z.string() }).loose();
export type DetailError = z.infer<typeof DetailError>;

/** Fields a PATCH may never change (the document's rule 3), as paths in the request body. */
export const IMMUTABLE_FIELDS = [
  'name',
  'source',
  'source_config.integration_id',
  'source_config.repo_url',
  'source_config.deployment_type',
  'source_config.listener_id',
  'source_config.listener_config.k8s_namespace',
] as const;
