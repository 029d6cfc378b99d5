// The objects test/crds.test.ts and test/plan-validation-agreement.test.ts send the API server: valid
// variations, and invalid objects each refused by one admission rule with its own message. They name no
// namespace: each test gives them one.
import { AGENT_DEPLOYMENT, API_VERSION, SANDBOX_TEMPLATE } from '../../src/api/group.ts';
import { at, externalImageObject, initContainer, type Mutate, type Obj, rs, sidecar } from './crd-objects.ts';

const RS = 'spec.sourceConfig.resourceSpec';

/** A valid repo_host AgentDeployment. */
export function repoHost(name = 'repo-agent'): Obj {
  return {
    apiVersion: API_VERSION,
    kind: AGENT_DEPLOYMENT.kind,
    metadata: { name },
    spec: {
      source: 'repo_host',
      sourceConfig: {
        integrationId: '3f0b1c2e-8a4d-4e6f-9b7a-1c2d3e4f5a6b',
        repoUrl: 'https://github.com/example-org/agent',
        deploymentType: 'dev',
      },
      sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
    },
  };
}

/** A valid external_image AgentDeployment with a volume, a mount, an init container and a sidecar. */
export const externalImage = (name = 'image-agent') => externalImageObject(undefined, name);

/** A valid SandboxTemplate. */
export function sandboxTemplate(name = 'template'): Obj {
  return {
    apiVersion: API_VERSION,
    kind: SANDBOX_TEMPLATE.kind,
    metadata: { name },
    spec: { templateName: 'python-data', resources: { cpu: '500m' }, proxyRules: [{ name: 'a' }] },
  };
}

/** A valid spec.analysis: one metric of each provider, headers of both kinds. */
export function analysis(): Record<string, unknown> {
  return {
    interval: '30s',
    count: 5,
    failureLimit: 1,
    inconclusiveLimit: 1,
    metrics: [
      {
        name: 'smoke',
        agentServer: { assistantId: 'agent', runs: 3 },
        successCondition: 'result.successRate >= 0.95',
        failureCondition: 'result.successRate < 0.8',
      },
      {
        name: 'error-rate',
        web: {
          url: 'https://metrics.example.com/agents/error-rate',
          jsonPath: '{$.errorRate}',
          headers: [
            { name: 'Authorization', valueFrom: { secretKeyRef: { name: 'metrics', key: 'token' } } },
            { name: 'Accept', value: 'application/json' },
          ],
        },
        successCondition: 'result < 0.05',
      },
      {
        name: 'p95',
        prometheus: {
          address: 'https://prometheus.example.com',
          query: 'agent_p95{revision={{revisionId}}}',
        },
        successCondition: 'result[0] < 2000.0',
        dryRun: true,
      },
    ],
  };
}

/** Valid objects beyond the bases: what, base, edit. */
export const VALID_VARIATIONS: [string, () => Obj, Mutate][] = [
  ['integer cpu values', externalImage, (o) => Object.assign(rs(o), { cpu: 8, cpuLimit: 16, queueCpu: 0.1 })],
  ['a branch with buildOnPush', repoHost, (o) => Object.assign(at(o, 'sourceConfig'), { buildOnPush: true })],
  [
    'observe-only',
    externalImage,
    (o) => {
      o.spec.managementPolicies = ['Observe'];
    },
  ],
  [
    'a tag without buildOnPush',
    repoHost,
    (o) => Object.assign(at(o, 'sourceRevisionConfig'), { repoRef: 'refs/tags/v1' }),
  ],
  [
    'an env var with an empty value and valueFrom',
    externalImage,
    (o) => {
      sidecar(o).env = [{ name: 'POD', value: '', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }];
    },
  ],
  [
    'an analysis with every provider',
    externalImage,
    (o) => {
      o.spec.analysis = analysis();
    },
  ],
];

/** Invalid objects: what, base, edit, text of the API server's refusal. */
export const INVALID_CASES: [string, () => Obj, Mutate, string][] = [
  [
    'managementPolicies other than ["*"] or ["Observe"]',
    repoHost,
    (o) => {
      o.spec.managementPolicies = ['Observe', '*'];
    },
    'spec.managementPolicies must be ["*"] (full management, the default) or ["Observe"] (observe-only)',
  ],
  [
    'an unknown management action',
    repoHost,
    (o) => {
      o.spec.managementPolicies = ['Create'];
    },
    'spec.managementPolicies[0]: Unsupported value: "Create"',
  ],
  [
    'unknown source',
    repoHost,
    (o) => {
      o.spec.source = 'git';
    },
    'spec.source: Unsupported value: "git"',
  ],
  [
    'unknown deploymentType',
    repoHost,
    (o) => {
      at(o, 'sourceConfig').deploymentType = 'staging';
    },
    'spec.sourceConfig.deploymentType: Unsupported value: "staging"',
  ],
  [
    'unknown deletionPolicy',
    repoHost,
    (o) => {
      o.spec.deletionPolicy = 'Keep';
    },
    'spec.deletionPolicy: Unsupported value: "Keep"',
  ],
  [
    'progressDeadline that is not a duration',
    repoHost,
    (o) => {
      o.spec.progressDeadline = 'soon';
    },
    'spec.progressDeadline must be a duration such as 30s, 5m or 1h',
  ],
  [
    'progressDeadline out of range',
    repoHost,
    (o) => {
      o.spec.progressDeadline = '1s';
    },
    'spec.progressDeadline must be between 5s and 24h',
  ],
  [
    'a deployment window whose duration is not one',
    repoHost,
    (o) => {
      o.spec.deploymentWindows = [{ kind: 'Deny', schedule: '0 0 * * *', duration: 'soon' }];
    },
    'spec.deploymentWindows[].duration must be a duration such as 30s, 5m or 1h',
  ],
  [
    'an Allow window of zero length, which never opens',
    repoHost,
    (o) => {
      o.spec.deploymentWindows = [{ kind: 'Allow', schedule: '0 0 * * *', duration: '0s' }];
    },
    'spec.deploymentWindows[].duration must be between 1m and 8784h',
  ],
  ...(
    [
      ['verification', 'timeout', { assistantId: 'agent', timeout: 'soon' }],
      ['verification', 'interval', { assistantId: 'agent', interval: 'daily' }],
      ['retry', 'backoff', { limit: 3, backoff: '1 minute' }],
    ] as const
  ).map(([field, key, value]): [string, () => Obj, Mutate, string] => [
    `${field}.${key} that is not a duration`,
    repoHost,
    (o) => {
      o.spec[field] = { ...value };
    },
    `spec.${field}.${key} must be a duration such as 30s, 5m or 1h`,
  ]),
  [
    'verification.timeout out of range',
    repoHost,
    (o) => {
      o.spec.verification = { assistantId: 'agent', timeout: '2h' };
    },
    'spec.verification.timeout must be between 1s and 1h',
  ],
  [
    'verification.interval out of range',
    repoHost,
    (o) => {
      o.spec.verification = { assistantId: 'agent', interval: '721h' };
    },
    'spec.verification.interval must be between 1s and 720h',
  ],
  [
    'retry.backoff out of range',
    repoHost,
    (o) => {
      o.spec.retry = { limit: 3, backoff: '500ms' };
    },
    'spec.retry.backoff must be between 1s and 1h',
  ],
  [
    'retry limit over 10',
    repoHost,
    (o) => {
      o.spec.retry = { limit: 11 };
    },
    'spec.retry.limit: Invalid value: 11: spec.retry.limit in body should be less than or equal to 10',
  ],
  [
    'repo_host without repoUrl',
    repoHost,
    (o) => {
      delete at(o, 'sourceConfig').repoUrl;
    },
    'spec.sourceConfig.repoUrl is required when spec.source is repo_host',
  ],
  [
    'repo_host without repoRef',
    repoHost,
    (o) => {
      delete at(o, 'sourceRevisionConfig').repoRef;
    },
    'spec.sourceRevisionConfig.repoRef is required when spec.source is repo_host',
  ],
  [
    'external_image without imageUri',
    externalImage,
    (o) => {
      delete o.spec.sourceRevisionConfig;
    },
    'spec.sourceRevisionConfig.imageUri is required when spec.source is external_image',
  ],
  ...(
    [
      ['sourceConfig.integrationId', 'x'],
      ['sourceConfig.repoUrl', 'https://example.com/r'],
      ['sourceConfig.deploymentType', 'prod'],
      ['sourceConfig.buildOnPush', false],
      ['sourceRevisionConfig.repoRef', 'main'],
      ['sourceRevisionConfig.graphConfigPath', 'langgraph.json'],
    ] as const
  ).map(([path, value]): [string, () => Obj, Mutate, string] => [
    `${path} with external_image`,
    externalImage,
    (o) => {
      const [parent, key] = path.split('.') as [string, string];
      at(o, parent)[key] = value;
    },
    `spec.${path} is only allowed when spec.source is repo_host`,
  ]),
  ...(
    [
      ['sourceConfig.resourceSpec', { cpu: 1 }],
      ['sourceConfig.listenerId', 'x'],
      ['sourceConfig.listenerConfig', { k8sNamespace: 'a' }],
      ['sourceConfig.customUrl', 'https://agent.example.com'],
      ['sourceRevisionConfig.imageUri', 'registry.example.com/a:1'],
    ] as const
  ).map(([path, value]): [string, () => Obj, Mutate, string] => [
    `${path} with repo_host`,
    repoHost,
    (o) => {
      const [parent, key] = path.split('.') as [string, string];
      at(o, parent)[key] = value;
    },
    `spec.${path} is only allowed when spec.source is external_image`,
  ]),
  [
    'buildOnPush with a tag',
    repoHost,
    (o) => {
      at(o, 'sourceConfig').buildOnPush = true;
      at(o, 'sourceRevisionConfig').repoRef = 'refs/tags/v1.2.0';
    },
    'spec.sourceConfig.buildOnPush must not be true when spec.sourceRevisionConfig.repoRef is a tag',
  ],
  [
    'a name with a line break (it would end a YAML comment that prints it)',
    repoHost,
    (o) => {
      o.spec.name = 'agent\n---';
    },
    'spec.name in body should match',
  ],
  ...(['labels', 'annotations'] as const).flatMap((map): [string, () => Obj, Mutate, string][] => [
    [
      `a resourceSpec.${map} key over 317 characters`,
      externalImage,
      (o) => {
        rs(o)[map] = { ['k'.repeat(318)]: 'v' };
      },
      `${RS}.${map}: Invalid value: keys must be at most 317 characters`,
    ],
    [
      `resourceSpec.${map} with 65 entries`,
      externalImage,
      (o) => {
        rs(o)[map] = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
      },
      `${RS}.${map}: Too many: 65: must have at most 64 items`,
    ],
  ]),
  [
    'cpu below 0.1',
    externalImage,
    (o) => {
      rs(o).cpu = 0.05;
    },
    `${RS}.cpu must be between 0.1 and 8`,
  ],
  [
    'cpu above 8',
    externalImage,
    (o) => {
      rs(o).cpu = 9;
    },
    `${RS}.cpu must be between 0.1 and 8`,
  ],
  [
    'cpuLimit above 16',
    externalImage,
    (o) => {
      rs(o).cpuLimit = 17;
    },
    `${RS}.cpuLimit must be between 0.1 and 16`,
  ],
  [
    'queueCpu of 0',
    externalImage,
    (o) => {
      rs(o).queueCpu = 0;
    },
    `${RS}.queueCpu must be between 0.1 and 8`,
  ],
  [
    'queueCpuLimit above 16',
    externalImage,
    (o) => {
      rs(o).queueCpuLimit = 16.5;
    },
    `${RS}.queueCpuLimit must be between 0.1 and 16`,
  ],
  [
    'orchestratorCpu',
    externalImage,
    (o) => {
      rs(o).orchestratorCpu = 1;
    },
    `${RS}.orchestratorCpu must not be set: the control plane marks it do not use`,
  ],
  [
    'executorMemoryMb',
    externalImage,
    (o) => {
      rs(o).executorMemoryMb = 512;
    },
    `${RS}.executorMemoryMb must not be set`,
  ],
  [
    'a volume name that is no DNS label',
    externalImage,
    (o) => {
      rs(o).volumes = [{ name: 'Scratch_Dir', emptyDir: {} }];
      rs(o).volumeMounts = [];
    },
    `${RS}.volumes[].name must be a DNS label`,
  ],
  [
    'a sidecar name that is no DNS label',
    externalImage,
    (o) => {
      sidecar(o).name = 'log.shipper';
    },
    `${RS}.sidecars[].name must be a DNS label`,
  ],
  [
    'an init container name that is no DNS label',
    externalImage,
    (o) => {
      initContainer(o).name = '-init';
    },
    `${RS}.initContainers[].name must be a DNS label`,
  ],
  [
    'duplicate volume names',
    externalImage,
    (o) => {
      rs(o).volumes = [
        { name: 'scratch', emptyDir: {} },
        { name: 'scratch', configMap: { name: 'c' } },
      ];
    },
    `${RS}.volumes[].name must be unique`,
  ],
  [
    'duplicate sidecar names',
    externalImage,
    (o) => {
      rs(o).sidecars = [
        { name: 'a', image: 'x' },
        { name: 'a', image: 'y' },
      ];
    },
    `${RS}.sidecars[].name must be unique`,
  ],
  [
    'duplicate init container names',
    externalImage,
    (o) => {
      rs(o).initContainers = [
        { name: 'a', image: 'x' },
        { name: 'a', image: 'y' },
      ];
    },
    `${RS}.initContainers[].name must be unique`,
  ],
  [
    'a secret name that is no C identifier',
    externalImage,
    (o) => {
      o.spec.secrets = [{ name: '1API_KEY', value: 'x' }];
    },
    'spec.secrets[].name must be a C identifier',
  ],
  [
    'a container env name that is no C identifier',
    externalImage,
    (o) => {
      sidecar(o).env = [{ name: 'LOG-LEVEL', value: 'x' }];
    },
    `${RS}.sidecars[].env[].name must be a C identifier`,
  ],
  [
    'a secret with value and valueFrom',
    externalImage,
    (o) => {
      o.spec.secrets = [{ name: 'K', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }];
    },
    'spec.secrets[]: value and valueFrom must not both be set',
  ],
  [
    'a secret with neither value nor valueFrom',
    externalImage,
    (o) => {
      o.spec.secrets = [{ name: 'K' }];
    },
    'spec.secrets[]: one of value or valueFrom is required',
  ],
  [
    'duplicate secret names',
    externalImage,
    (o) => {
      o.spec.secrets = [
        { name: 'K', value: 'a' },
        { name: 'K', value: 'b' },
      ];
    },
    'spec.secrets[].name must be unique',
  ],
  [
    'an init container env name that is no C identifier',
    externalImage,
    (o) => {
      initContainer(o).env = [{ name: 'LOG-LEVEL', value: 'x' }];
    },
    `${RS}.initContainers[].env[].name must be a C identifier`,
  ],
  [
    'an init container volume mount with recursiveReadOnly',
    externalImage,
    (o) => {
      initContainer(o).volumeMounts = [{ name: 'scratch', mountPath: '/s', recursiveReadOnly: 'Disabled' }];
    },
    `${RS}.initContainers[].volumeMounts[].recursiveReadOnly is not a volume mount field the control plane accepts`,
  ],
  [
    'a secretsFrom prefix that is no C identifier',
    externalImage,
    (o) => {
      o.spec.secretsFrom = [{ secretRef: { name: 's' }, prefix: 'APP-' }];
    },
    'spec.secretsFrom[].prefix must be a C identifier',
  ],
  [
    'an env var with a non-empty value and valueFrom',
    externalImage,
    (o) => {
      sidecar(o).env = [{ name: 'POD', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }];
    },
    `${RS}.sidecars[].env[]: value and valueFrom must not both be set`,
  ],
  [
    'an init container env var with a non-empty value and valueFrom',
    externalImage,
    (o) => {
      initContainer(o).env = [
        { name: 'POD', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ];
    },
    `${RS}.initContainers[].env[]: value and valueFrom must not both be set`,
  ],
  [
    'a volume mount naming no volume',
    externalImage,
    (o) => {
      rs(o).volumeMounts = [{ name: 'cache', mountPath: '/c' }];
    },
    `${RS}.volumeMounts[].name must name a volume in ${RS}.volumes`,
  ],
  [
    'a sidecar volume mount naming no volume',
    externalImage,
    (o) => {
      sidecar(o).volumeMounts = [{ name: 'cache', mountPath: '/c' }];
    },
    `${RS}.sidecars[].volumeMounts[].name must name a volume in ${RS}.volumes`,
  ],
  [
    'an init container volume mount with no volumes at all',
    externalImage,
    (o) => {
      delete rs(o).volumes;
      delete rs(o).volumeMounts;
      initContainer(o).volumeMounts = [{ name: 'scratch', mountPath: '/s' }];
    },
    `${RS}.initContainers[].volumeMounts[].name must name a volume in ${RS}.volumes`,
  ],
  [
    'an unknown imagePullPolicy',
    externalImage,
    (o) => {
      sidecar(o).imagePullPolicy = 'Sometimes';
    },
    `${RS}.sidecars[0].imagePullPolicy: Unsupported value: "Sometimes"`,
  ],
  [
    'an unknown sidecar restartPolicy',
    externalImage,
    (o) => {
      sidecar(o).restartPolicy = 'Never';
    },
    `${RS}.sidecars[0].restartPolicy: Unsupported value: "Never"`,
  ],
  [
    'a resource quantity that is no quantity',
    externalImage,
    (o) => {
      sidecar(o).resources = { limits: { cpu: 'lots' } };
    },
    `${RS}.sidecars[0].resources.limits.cpu`,
  ],
  [
    'a SandboxTemplate without templateName',
    sandboxTemplate,
    (o) => {
      delete o.spec.templateName;
    },
    'spec.templateName: Required value',
  ],
  [
    'a SandboxTemplate cpu that is no quantity',
    sandboxTemplate,
    (o) => {
      at(o, 'resources').cpu = 'two cores';
    },
    'spec.resources.cpu: Invalid value',
  ],
  [
    'duplicate SandboxTemplate proxy rule names',
    sandboxTemplate,
    (o) => {
      o.spec.proxyRules = [{ name: 'a' }, { name: 'a' }];
    },
    'spec.proxyRules[].name must be unique',
  ],
  [
    'an analysis metric with no provider',
    repoHost,
    (o) => {
      o.spec.analysis = { count: 1, metrics: [{ name: 'm', successCondition: 'result' }] };
    },
    'spec.analysis.metrics[]: one provider is required: agentServer, web or prometheus',
  ],
  [
    'an analysis metric with two providers',
    repoHost,
    (o) => {
      o.spec.analysis = {
        count: 1,
        metrics: [
          {
            name: 'm',
            agentServer: { assistantId: 'agent' },
            prometheus: { address: 'https://p.example.com', query: 'up' },
            successCondition: 'result',
          },
        ],
      };
    },
    'spec.analysis.metrics[]: only one provider may be set: agentServer, web or prometheus',
  ],
  [
    'an analysis header with value and valueFrom',
    repoHost,
    (o) => {
      const web = {
        url: 'https://metrics.example.com/x',
        jsonPath: '{$.x}',
        headers: [{ name: 'X-Key', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      };
      o.spec.analysis = { count: 1, metrics: [{ name: 'm', web, successCondition: 'result' }] };
    },
    'spec.analysis.metrics[].web.headers[]: exactly one of value or valueFrom is required',
  ],
  [
    'an analysis interval that is not a duration',
    repoHost,
    (o) => {
      o.spec.analysis = { ...analysis(), interval: 'often' };
    },
    'spec.analysis.interval must be a duration such as 30s, 5m or 1h',
  ],
  [
    'an analysis interval out of range',
    repoHost,
    (o) => {
      o.spec.analysis = { ...analysis(), interval: '1s' };
    },
    'spec.analysis.interval must be between 10s and 24h',
  ],
  [
    'duplicate analysis metric names',
    repoHost,
    (o) => {
      const m = { name: 'm', agentServer: { assistantId: 'agent' }, successCondition: 'result' };
      o.spec.analysis = { count: 1, metrics: [m, { ...m }] };
    },
    'spec.analysis.metrics[].name must be unique',
  ],
  [
    'an analysis with no metric',
    repoHost,
    (o) => {
      o.spec.analysis = { count: 1, metrics: [] };
    },
    'spec.analysis.metrics must list at least one metric',
  ],
];
