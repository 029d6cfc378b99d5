/**
 * An AgentDeployment's sourceConfig and sourceRevisionConfig, the control plane's source_config and
 * source_revision_config in camelCase. Which fields each source allows or requires is a rule of the spec
 * (agentdeployment.ts), where spec.source is visible; which cannot change is a rule of sourceConfig itself,
 * and of the spec for sourceConfig coming or going as a whole.
 */
import { z } from 'zod';
import { IMMUTABLE_FIELDS } from '../controlplane/schemas.ts';
import { snakeToCamel } from '../lib/paths.ts';
import { cel, celImmutable } from './common.ts';
import { ResourceSpec } from './resource-spec.ts';

/** The control plane's immutable source_config fields, as paths below spec.sourceConfig. */
export const IMMUTABLE_SOURCE_CONFIG_FIELDS: readonly (readonly string[])[] = IMMUTABLE_FIELDS.filter((f) =>
  f.startsWith('source_config.'),
).map((f) => f.split('.').slice(1).map(snakeToCamel));

export const immutableMessage = (path: readonly string[]) =>
  `spec.sourceConfig.${path.join('.')} is immutable`;

export const DeploymentType = z.enum(['dev_free', 'dev', 'prod']);
export type DeploymentType = z.infer<typeof DeploymentType>;

export const SourceConfig = z
  .object({
    integrationId: z
      .string()
      .max(64)
      .optional()
      .describe(
        'Id of the repository-host integration (from GET /v1/integrations/<repo_host>/install). Only for repo_host. Immutable.',
      ),
    repoUrl: z
      .string()
      .max(2048)
      .optional()
      .describe('Git repository URL. Only for repo_host; required there. Immutable.'),
    deploymentType: DeploymentType.optional().describe(
      'Deployment type: dev_free, dev or prod. Only for repo_host. Immutable.',
    ),
    buildOnPush: z
      .boolean()
      .optional()
      .describe(
        'Build a new revision on every push to sourceRevisionConfig.repoRef. Only for repo_host; not allowed with a tag ref (refs/tags/...).',
      ),
    customUrl: z
      .string()
      .max(2048)
      .optional()
      .describe('Custom URL of the deployment. Only for external_image (repo_host sets it automatically).'),
    listenerId: z
      .string()
      .max(64)
      .optional()
      .describe(
        'Id of the listener (from GET /v2/listeners) that runs the deployment. Only for external_image. Immutable.',
      ),
    listenerConfig: z
      .object({
        k8sNamespace: z
          .string()
          .max(63)
          .optional()
          .describe(
            'Orchestrator namespace the deployment goes to (listeners of compute type k8s). Immutable.',
          ),
      })
      .optional()
      .describe('Listener settings. Only for external_image.'),
    installCommand: z
      .string()
      .max(4096)
      .optional()
      .describe(
        'JS deployments only: install command, run from the repository root. Autodetected when absent.',
      ),
    buildCommand: z
      .string()
      .max(4096)
      .optional()
      .describe(
        'JS deployments only: build command, run from the directory holding the graph configuration file.',
      ),
    resourceSpec: ResourceSpec.optional().describe(
      'Replicas, compute, volumes and containers of the deployment. Only for external_image. Replaced as a whole on change.',
    ),
  })
  .meta(cel(...IMMUTABLE_SOURCE_CONFIG_FIELDS.map((path) => celImmutable(path, immutableMessage(path)))));
export type SourceConfig = z.infer<typeof SourceConfig>;

export const SourceRevisionConfig = z.object({
  repoRef: z
    .string()
    .max(1024)
    .optional()
    .describe(
      'Git ref to deploy: a branch by its bare name, a tag as refs/tags/<tag>. Only for repo_host; required there.',
    ),
  graphConfigPath: z
    .string()
    .max(4096)
    .optional()
    .describe('Path of the graph configuration file in the repository. Only for repo_host.'),
  imageUri: z
    .string()
    .max(4096)
    .optional()
    .describe('URI of the container image. Only for external_image; required there.'),
});
export type SourceRevisionConfig = z.infer<typeof SourceRevisionConfig>;
