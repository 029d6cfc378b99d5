/**
 * AgentDeployment (deploy.agents.dev/v1alpha1): the single source of truth for its CRD schema
 * (scripts/generate.ts) and for the controller's types. The spec mirrors the control plane's Deployment in
 * camelCase, one to one; the document's rules are CEL rules the API server enforces at admission. Its
 * parts: source-config.ts (with resource-spec.ts), verification.ts and analysis.ts.
 */
import { z } from 'zod';
import { Analysis, AnalysisStatus } from './analysis.ts';
import {
  API_VERSION_DESCRIPTION,
  type CelRule,
  cel,
  celHas,
  celImmutableBelow,
  celUnique,
  conditions,
  durationField,
  KIND_DESCRIPTION,
  localRef,
  ObjectMeta,
  UNOBSERVED_STATUS,
} from './common.ts';
import { DeploymentWindowStatus, DeploymentWindows } from './deployment-windows.ts';
import { History, MAX_REVISION_HISTORY_LIMIT, Remediation } from './remediation.ts';
import { SecretEnv, SecretsFrom } from './secret-env.ts';
import {
  IMMUTABLE_SOURCE_CONFIG_FIELDS,
  immutableMessage,
  SourceConfig,
  SourceRevisionConfig,
} from './source-config.ts';
import { Verification, VerificationStatus } from './verification.ts';

export const Source = z.enum(['repo_host', 'external_image']);
export type Source = z.infer<typeof Source>;

export const DeletionPolicy = z.enum(['Delete', 'Orphan']);
export type DeletionPolicy = z.infer<typeof DeletionPolicy>;

/**
 * Crossplane's management actions, of which the operator implements two policies: `["*"]` (every action:
 * the default) and `["Observe"]` (observe-only). Kept as Crossplane's list so that more combinations
 * (say, no Delete) can be added without a new field.
 */
export const ManagementAction = z.enum(['*', 'Observe']);
export type ManagementAction = z.infer<typeof ManagementAction>;

// ---- spec ----

const SC = ['sourceConfig'] as const;
const SRC = ['sourceRevisionConfig'] as const;

/** Fields the document allows for one source only, as paths below spec. */
const ONLY_FOR: Record<Source, readonly (readonly string[])[]> = {
  repo_host: [
    [...SC, 'integrationId'],
    [...SC, 'repoUrl'],
    [...SC, 'deploymentType'],
    [...SC, 'buildOnPush'],
    [...SRC, 'repoRef'],
    [...SRC, 'graphConfigPath'],
  ],
  external_image: [
    [...SC, 'resourceSpec'],
    [...SC, 'listenerId'],
    [...SC, 'listenerConfig'],
    [...SC, 'customUrl'],
    [...SRC, 'imageUri'],
  ],
};

const REQUIRED_FOR: Record<Source, readonly (readonly string[])[]> = {
  repo_host: [
    [...SC, 'repoUrl'],
    [...SRC, 'repoRef'],
  ],
  external_image: [[...SRC, 'imageUri']],
};

const specRules: CelRule[] = [
  ...Object.entries(ONLY_FOR).flatMap(([source, paths]) =>
    paths.map((path) => ({
      rule: `self.source == '${source}' || !(${celHas('self', path)})`,
      message: `spec.${path.join('.')} is only allowed when spec.source is ${source}`,
      fieldPath: `.${path.join('.')}`,
      reason: 'FieldValueForbidden' as const,
    })),
  ),
  ...Object.entries(REQUIRED_FOR).flatMap(([source, paths]) =>
    paths.map((path) => ({
      rule: `self.source != '${source}' || (${celHas('self', path)})`,
      message: `spec.${path.join('.')} is required when spec.source is ${source}`,
      fieldPath: `.${path.join('.')}`,
      reason: 'FieldValueRequired' as const,
    })),
  ),
  {
    rule:
      `!(${celHas('self', [...SC, 'buildOnPush'])} && self.sourceConfig.buildOnPush) || ` +
      `!(${celHas('self', [...SRC, 'repoRef'])} && self.sourceRevisionConfig.repoRef.startsWith('refs/tags/'))`,
    message:
      'spec.sourceConfig.buildOnPush must not be true when spec.sourceRevisionConfig.repoRef is a tag (refs/tags/...): tags are immutable',
    fieldPath: '.sourceConfig.buildOnPush',
  },
  // sourceConfig's own rules keep its immutable fields while it stays; these, while it comes or goes.
  ...IMMUTABLE_SOURCE_CONFIG_FIELDS.map((path) =>
    celImmutableBelow('sourceConfig', path, immutableMessage(path)),
  ),
];

// ---- progress ----

export const DEFAULT_PROGRESS_DEADLINE = '30m';
export const DEFAULT_RETRY_BACKOFF = '30s';

export const Retry = z.object({
  limit: z
    .int()
    .min(1)
    .max(10)
    .describe('How many times a failed revision is redeployed automatically before the object is Stalled.'),
  backoff: durationField('spec.retry.backoff', '1s', '1h')
    .optional()
    .describe('Wait before the first retry, doubled for each next one (1s to 1h). Defaults to 30s.'),
});
export type Retry = z.infer<typeof Retry>;

/**
 * A deployment name: the interface document states no character rule (only that a name is unique in a
 * tenant), so this is ours: 1 to 253 characters, none of them a control character, a format character
 * (bidi overrides, zero-width) or a line or paragraph separator. Such a name could forge lines in YAML,
 * logs and terminals; no real name needs one. The pattern is RE2 and ECMAScript alike (the CRD's).
 */
export const DEPLOYMENT_NAME_PATTERN = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u;
export const DEPLOYMENT_NAME_RULE =
  'must have no control, format or line-separator characters (newlines, escapes, bidi overrides)';

export const AgentDeploymentSpec = z
  .object({
    name: z
      .string()
      .min(1)
      .max(253)
      .regex(DEPLOYMENT_NAME_PATTERN, DEPLOYMENT_NAME_RULE)
      .optional()
      .describe(
        'Name of the deployment on the control plane: 1 to 253 characters, no control, format or line-separator characters. Defaults to metadata.name. Immutable once set.',
      ),
    source: Source.meta(cel({ rule: 'self == oldSelf', message: 'spec.source is immutable' })).describe(
      'Where the deployment comes from: repo_host (a hosted git repository, cloud only) or external_image (a container image, self-hosted). Immutable.',
    ),
    sourceConfig: SourceConfig.optional().describe(
      'Settings that do not need a new revision when changed (or cannot be changed). Fields are validated according to source.',
    ),
    sourceRevisionConfig: SourceRevisionConfig.optional().describe(
      'Settings of the latest revision; changing them creates a new revision. Fields are validated according to source.',
    ),
    secrets: z
      .array(SecretEnv)
      .max(256)
      .meta(cel(celUnique('name', 'spec.secrets[].name must be unique')))
      .optional()
      .describe(
        'Secrets exposed as environment variables in the deployment: each a literal value or a key of a Secret (valueFrom.secretKeyRef).',
      ),
    secretsFrom: z
      .array(SecretsFrom)
      .max(32)
      .optional()
      .describe(
        'Take every key of a Secret as a secret (name = prefix + key). Explicit secrets win on conflicts.',
      ),
    credentialsSecretRef: localRef(
      "Name of a Secret in the object's namespace with keys apiKey, and optionally tenantId, bearerToken and baseUrl.",
    )
      .optional()
      .describe(
        "Control-plane credentials for this object instead of the controller's own; never another namespace's.",
      ),
    verification: Verification.optional().describe(
      'Prove the deployment answers before it is Ready: after the latest revision is DEPLOYED, GET /ok, then a smoke run on a fresh thread, joined within the timeout; repeated every interval.',
    ),
    analysis: Analysis.optional().describe(
      "Measure each new revision over time (Argo Rollouts' AnalysisTemplate, per revision): metrics from the agent server, a JSON endpoint or Prometheus, judged by CEL conditions; only a Successful analysis makes a revision the last good one. See docs/analysis.md.",
    ),
    deletionPolicy: DeletionPolicy.default('Delete').describe(
      'What deleting this object does: Delete (the default) deletes the deployment; Orphan leaves it running.',
    ),
    managementPolicies: z
      .array(ManagementAction)
      .max(2)
      .meta(
        cel({
          rule: "self == ['*'] || self == ['Observe']",
          message:
            'spec.managementPolicies must be ["*"] (full management, the default) or ["Observe"] (observe-only)',
        }),
      )
      .optional()
      .describe(
        'What the controller may do to the deployment, as Crossplane\'s managementPolicies: ["*"] (the default) creates, patches, redeploys and deletes it; ["Observe"] only observes it (by the adopt annotation, a recorded id, or the deployment name) and reports its status, revision, URL and drift, sending nothing; deleting the object then never deletes the deployment, whatever deletionPolicy says.',
      ),
    deleteTracingProject: z
      .boolean()
      .optional()
      .describe(
        'With deletionPolicy Delete, also delete the tracing project the platform created with the deployment. Defaults to false (the project is kept).',
      ),
    progressDeadline: durationField('spec.progressDeadline', '5s', '24h')
      .default(DEFAULT_PROGRESS_DEADLINE)
      .describe(
        'How long the latest revision may take to reach DEPLOYED before the object is Stalled with ProgressDeadlineExceeded (5s to 24h). Defaults to 30m.',
      ),
    retry: Retry.optional().describe(
      'Redeploy a revision that ends DEPLOY_FAILED or stays INTERRUPTED, up to limit times with backoff. A build failure is never retried automatically. Without it, a failed revision waits for a spec change or the deploy.agents.dev/redeploy-requested-at annotation.',
    ),
    remediation: Remediation.optional().describe(
      'What happens when the latest revision fails, after spec.retry: nothing (the default), or a rollback to status.lastGoodRevision. See docs/agentdeployment.md, Safe rollouts.',
    ),
    revisionHistoryLimit: z
      .int()
      .min(1)
      .max(MAX_REVISION_HISTORY_LIMIT)
      .optional()
      .describe('How many revisions status.history keeps (1 to 10). Defaults to 5.'),
    deploymentWindows: DeploymentWindows.optional(),
  })
  .meta(cel(...specRules));
export type AgentDeploymentSpec = z.infer<typeof AgentDeploymentSpec>;

export const AgentDeploymentStatus = z.object({
  deploymentId: z
    .string()
    .max(64)
    .optional()
    .describe(
      'Id of the deployment on the control plane this object owns: it created it, or adopted it by annotation. Only this deployment is ever patched, redeployed or deleted.',
    ),
  credentialsDigest: z
    .string()
    .max(80)
    .optional()
    .describe(
      'Digest of the tenant and base URL under which deploymentId was created or adopted. A deployment missing under other credentials is not created again (CredentialsChanged).',
    ),
  createPendingSince: z.iso
    .datetime()
    .optional()
    .describe(
      "Set, before the create request is sent, until its answer is recorded. After a lost answer, a deployment of the name is taken as this object's only if it was created after this time and no other object claims it.",
    ),
  latestRevisionId: z.string().max(64).optional().describe('Id of the latest revision.'),
  activeRevisionId: z.string().max(64).optional().describe('Id of the revision currently deployed.'),
  revisionStatus: z
    .string()
    .max(64)
    .optional()
    .describe('Status of the latest revision, e.g. BUILDING, DEPLOYING, DEPLOYED, BUILD_FAILED.'),
  deploymentStatus: z
    .string()
    .max(64)
    .optional()
    .describe('Status of the deployment, e.g. AWAITING_DATABASE, READY, UNUSED.'),
  url: z.string().max(2048).optional().describe('URL of the deployment.'),
  imageVersion: z.string().max(256).optional().describe('Image version of the deployment.'),
  repoCommitSha: z.string().max(64).optional().describe('Commit of the latest revision (repo_host).'),
  observedGeneration: z.int().min(0).optional().describe('metadata.generation this status describes.'),
  secretsDigest: z
    .string()
    .max(256)
    .optional()
    .describe(
      'Keyed digest of the secrets last applied, to detect changes. Never a value or a plain hash of one.',
    ),
  appliedConfigDigest: z
    .string()
    .max(256)
    .optional()
    .describe(
      'Digest of the applied settings the control plane does not echo back (installCommand, buildCommand), to detect their changes.',
    ),
  verification: VerificationStatus.optional().describe(
    'Post-deploy verification of the latest revision: the run in flight and the last completed one.',
  ),
  analysis: AnalysisStatus.optional(),
  lastHandledReconcileAt: z
    .string()
    .max(256)
    .optional()
    .describe('Value of the deploy.agents.dev/reconcile-requested-at annotation last handled.'),
  lastHandledRedeployAt: z
    .string()
    .max(256)
    .optional()
    .describe('Value of the deploy.agents.dev/redeploy-requested-at annotation last handled.'),
  deploymentWindow: DeploymentWindowStatus.optional(),
  lastHandledUndoAt: z
    .string()
    .max(256)
    .optional()
    .describe('Value of the deploy.agents.dev/undo-requested-at annotation last handled.'),
  lastHandledPromoteAt: z
    .string()
    .max(256)
    .optional()
    .describe('Value of the deploy.agents.dev/analysis-promote-requested-at annotation last handled.'),
  lastHandledAbortAt: z
    .string()
    .max(256)
    .optional()
    .describe('Value of the deploy.agents.dev/analysis-abort-requested-at annotation last handled.'),
  analysisRequestRefused: z
    .string()
    .max(512)
    .optional()
    .describe(
      'The last promote or abort request that was refused (its annotation and value) and why; cleared when one is accepted.',
    ),
  retries: z
    .int()
    .min(0)
    .optional()
    .describe('Automatic redeploys (spec.retry) made for the current spec; a spec change starts over.'),
  history: History.optional(),
  lastGoodRevision: z
    .string()
    .max(64)
    .optional()
    .describe(
      'Id of the newest revision that deployed and, with spec.verification, verified, and whose analysis (spec.analysis), if it had one, succeeded: what a rollback (spec.remediation) goes back to.',
    ),
  drift: z
    .array(z.string().max(256))
    .max(64)
    .optional()
    .describe(
      'Observe-only (spec.managementPolicies ["Observe"]): the spec fields where the deployment differs from the spec, by path; empty when in sync. Never a value.',
    ),
  conditions: conditions().optional(),
});
export type AgentDeploymentStatus = z.infer<typeof AgentDeploymentStatus>;

/**
 * spec.name defaults to metadata.name, which never changes: spec.name may be set to metadata.name or removed
 * while equal to it, and nothing else. The common case, no spec.name before or after, reads two fields.
 */
const rootRules: CelRule[] = [
  {
    rule:
      '!has(self.spec.name) && !has(oldSelf.spec.name) || ' +
      '(has(self.spec.name) && has(oldSelf.spec.name) ? self.spec.name == oldSelf.spec.name ' +
      ': has(self.spec.name) ? self.spec.name == oldSelf.metadata.name : self.metadata.name == oldSelf.spec.name)',
    message: 'spec.name is immutable',
    fieldPath: '.spec.name',
  },
];

export const AgentDeployment = z
  .object({
    apiVersion: z.string().describe(API_VERSION_DESCRIPTION),
    kind: z.string().describe(KIND_DESCRIPTION),
    metadata: ObjectMeta,
    spec: AgentDeploymentSpec.describe('Desired state of the deployment on the control plane.'),
    status: AgentDeploymentStatus.default(UNOBSERVED_STATUS)
      .optional()
      .describe('State observed by the controller.'),
  })
  .meta(cel(...rootRules));
export type AgentDeployment = z.infer<typeof AgentDeployment>;
