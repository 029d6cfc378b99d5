/** What a stored deployment looks like on the wire: masked secrets, unechoed fields left out. */
import type { Deployment, SourceConfig } from '../controlplane/schemas.ts';
import type { StoredDeployment } from './store.ts';

export const MASKED_SECRET_VALUE = '********';

/** Stored but not echoed back, as production does not always echo them. */
const UNECHOED_SOURCE_CONFIG_FIELDS = ['install_command', 'build_command', 'listener_config'] as const;

export function presentDeployment(deployment: StoredDeployment): Deployment {
  const sourceConfig: SourceConfig = { ...deployment.source_config };
  for (const field of UNECHOED_SOURCE_CONFIG_FIELDS) delete sourceConfig[field];
  return {
    ...deployment,
    source_config: sourceConfig,
    source_revision_config: { ...deployment.source_revision_config },
    secrets: deployment.secrets.map((s) => ({ name: s.name, value: MASKED_SECRET_VALUE })),
  };
}
