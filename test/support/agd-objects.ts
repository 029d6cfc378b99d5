/** AgentDeployment objects the integration tests apply: the smallest valid one of each source. */
import { defaultListeners } from '../../src/simulator/index.ts';

export const LISTENER = defaultListeners()[0]?.id as string;
export const INTEGRATION = '6f1f7a4e-8d7b-4c43-9a57-2f6a9b1c0d11';

/** `spec` keys replace the defaults; `sourceConfig` keys are merged into the default sourceConfig. */
export const externalImage = (
  name: string,
  spec: Record<string, unknown> = {},
  sourceConfig: Record<string, unknown> = {},
) => ({
  metadata: { name },
  spec: {
    source: 'external_image',
    sourceConfig: {
      listenerId: LISTENER,
      resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 },
      ...sourceConfig,
    },
    sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
    ...spec,
  },
});

export const repoHost = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: {
    source: 'repo_host',
    sourceConfig: {
      integrationId: INTEGRATION,
      repoUrl: 'https://git.example.com/team/agent',
      deploymentType: 'dev',
    },
    sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
    ...spec,
  },
});
