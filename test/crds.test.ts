/**
 * The generated CRDs against a real API server: the examples are accepted, every admission rule refuses
 * what it should with its own message, immutable fields stay immutable, `kubectl explain` teaches the
 * API, and the status subresource keeps spec and status writes apart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CustomObjectsApi, type KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import yaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_DEPLOYMENT, API_VERSION, GROUP, SANDBOX_TEMPLATE, VERSION } from '../src/api/group.ts';
import {
  at,
  externalImageObject,
  initContainer,
  type Mutate,
  type Obj,
  refusal,
  rs,
  sidecar,
} from './support/crd-objects.ts';
import { createTestNamespace, kubeConfigFromProvided, kubectl } from './support/kube.ts';

const EXAMPLES = join(import.meta.dirname, '..', 'examples');
const RS = 'spec.sourceConfig.resourceSpec';

let kc: KubeConfig;
let objects: KubernetesObjectApi;
let custom: CustomObjectsApi;
let namespace: string;

beforeAll(async () => {
  kc = kubeConfigFromProvided();
  objects = KubernetesObjectApi.makeApiClient(kc);
  custom = kc.makeApiClient(CustomObjectsApi);
  namespace = await createTestNamespace('crds');
});

// ---- objects ----

function repoHost(name = 'repo-agent'): Obj {
  return {
    apiVersion: API_VERSION,
    kind: AGENT_DEPLOYMENT.kind,
    metadata: { name, namespace },
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

const externalImage = (name = 'image-agent') => externalImageObject(namespace, name);

function sandboxTemplate(name = 'template'): Obj {
  return {
    apiVersion: API_VERSION,
    kind: SANDBOX_TEMPLATE.kind,
    metadata: { name, namespace },
    spec: { templateName: 'python-data', resources: { cpu: '500m' }, proxyRules: [{ name: 'a' }] },
  };
}

const dryRunCreate = (o: Obj) => refusal(() => objects.create(o, undefined, 'All'));

// ---- tests ----

describe('examples', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'));

  it('has an example of each kind and source', () => {
    const docs = files.flatMap((f) => yaml.loadAll(readFileSync(join(EXAMPLES, f), 'utf8')) as Obj[]);
    const sources = docs.filter((d) => d.kind === AGENT_DEPLOYMENT.kind).map((d) => d.spec?.source);
    expect(new Set(sources)).toEqual(new Set(['repo_host', 'external_image']));
    expect(docs.some((d) => d.kind === SANDBOX_TEMPLATE.kind)).toBe(true);
  });

  it.each(files)('%s is accepted (server-side dry run)', async (file) => {
    for (const doc of yaml.loadAll(readFileSync(join(EXAMPLES, file), 'utf8')) as Obj[]) {
      doc.metadata = { ...doc.metadata, namespace };
      expect(await dryRunCreate(doc), `${doc.kind} ${doc.metadata.name}`).toBeUndefined();
    }
  });
});

describe('valid variations', () => {
  it.each<[string, () => Obj, Mutate]>([
    [
      'integer cpu values',
      externalImage,
      (o) => Object.assign(rs(o), { cpu: 8, cpuLimit: 16, queueCpu: 0.1 }),
    ],
    [
      'a branch with buildOnPush',
      repoHost,
      (o) => Object.assign(at(o, 'sourceConfig'), { buildOnPush: true }),
    ],
    [
      'a tag without buildOnPush',
      repoHost,
      (o) => Object.assign(at(o, 'sourceRevisionConfig'), { repoRef: 'refs/tags/v1' }),
    ],
    [
      'observe-only',
      externalImage,
      (o) => {
        o.spec.managementPolicies = ['Observe'];
      },
    ],
    [
      'an env var with an empty value and valueFrom',
      externalImage,
      (o) => {
        sidecar(o).env = [
          { name: 'POD', value: '', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ];
      },
    ],
  ])('accepts %s', async (_what, base, mutate) => {
    const o = base();
    mutate(o);
    expect(await dryRunCreate(o)).toBeUndefined();
  });
});

const invalid: [string, () => Obj, Mutate, string][] = [
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
];

describe('admission refuses invalid objects', () => {
  it('covers at least 30 rules', () => {
    expect(invalid.length).toBeGreaterThanOrEqual(30);
  });

  it.each(invalid)('refuses %s', async (_what, base, mutate, expected) => {
    const o = base();
    expect(await dryRunCreate(o), 'the unmodified base object is valid').toBeUndefined();
    mutate(o);
    const message = await dryRunCreate(o);
    expect(message).toBeDefined();
    expect(message).toContain(expected);
  });
});

describe('immutable fields', () => {
  const stored = new Map<string, Obj>();

  beforeAll(async () => {
    const sources: [string, Obj][] = [
      ['repo', repoHost('immutable-repo')],
      ['image', externalImage('immutable-image')],
      ['template', sandboxTemplate('immutable-template')],
    ];
    const repoWithoutType = repoHost('immutable-repo-untyped');
    delete at(repoWithoutType, 'sourceConfig').deploymentType;
    sources.push(['repo-untyped', repoWithoutType]);
    for (const [key, o] of sources) stored.set(key, (await objects.create(o)) as Obj);
  });

  /** Dry-run update of a stored object after `mutate`. */
  const update = async (key: string, mutate: Mutate) => {
    const current = structuredClone((await objects.read(stored.get(key) as Obj)) as Obj);
    mutate(current);
    return refusal(() => objects.replace(current, undefined, 'All'));
  };

  it.each<[string, string, Mutate, string]>([
    [
      'setting spec.name',
      'repo',
      (o) => {
        o.spec.name = 'renamed';
      },
      'spec.name is immutable',
    ],
    [
      'changing spec.source',
      'image',
      (o) => {
        o.spec.source = 'repo_host';
      },
      'spec.source is immutable',
    ],
    [
      'changing sourceConfig.integrationId',
      'repo',
      (o) => {
        at(o, 'sourceConfig').integrationId = 'other';
      },
      'spec.sourceConfig.integrationId is immutable',
    ],
    [
      'removing sourceConfig.integrationId',
      'repo',
      (o) => {
        delete at(o, 'sourceConfig').integrationId;
      },
      'spec.sourceConfig.integrationId is immutable',
    ],
    [
      'changing sourceConfig.repoUrl',
      'repo',
      (o) => {
        at(o, 'sourceConfig').repoUrl = 'https://github.com/x/y';
      },
      'spec.sourceConfig.repoUrl is immutable',
    ],
    [
      'changing sourceConfig.deploymentType',
      'repo',
      (o) => {
        at(o, 'sourceConfig').deploymentType = 'prod';
      },
      'spec.sourceConfig.deploymentType is immutable',
    ],
    [
      'adding sourceConfig.deploymentType',
      'repo-untyped',
      (o) => {
        at(o, 'sourceConfig').deploymentType = 'prod';
      },
      'spec.sourceConfig.deploymentType is immutable',
    ],
    [
      'changing sourceConfig.listenerId',
      'image',
      (o) => {
        at(o, 'sourceConfig').listenerId = 'other';
      },
      'spec.sourceConfig.listenerId is immutable',
    ],
    [
      'changing listenerConfig.k8sNamespace',
      'image',
      (o) => {
        at(o, 'sourceConfig.listenerConfig').k8sNamespace = 'b';
      },
      'spec.sourceConfig.listenerConfig.k8sNamespace is immutable',
    ],
    [
      'removing listenerConfig',
      'image',
      (o) => {
        delete at(o, 'sourceConfig').listenerConfig;
      },
      'spec.sourceConfig.listenerConfig.k8sNamespace is immutable',
    ],
    [
      'changing SandboxTemplate templateName',
      'template',
      (o) => {
        o.spec.templateName = 'other';
      },
      'spec.templateName is immutable',
    ],
  ])('refuses %s', async (_what, key, mutate, expected) => {
    expect(await update(key, mutate)).toContain(expected);
  });

  it.each<[string, string, Mutate]>([
    [
      'spec.name set to metadata.name (the name it already has)',
      'repo',
      (o) => {
        o.spec.name = o.metadata.name;
      },
    ],
    [
      'mutable fields',
      'image',
      (o) => {
        rs(o).cpu = 2;
        at(o, 'sourceRevisionConfig').imageUri = 'registry.example.com/agent:1.1.0';
      },
    ],
    [
      'SandboxTemplate image',
      'template',
      (o) => {
        o.spec.image = 'python:3.13';
      },
    ],
  ])('accepts %s', async (_what, key, mutate) => {
    expect(await update(key, mutate)).toBeUndefined();
  });
});

describe('kubectl explain', () => {
  it('prints the field descriptions of spec.sourceConfig', async () => {
    // The API server publishes a new CRD's OpenAPI a little after the CRD is established.
    let output = '';
    for (let attempt = 0; attempt < 30 && !output.includes('Git repository URL'); attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 1000));
      const result = await kubectl(['explain', 'agentdeployment.spec.sourceConfig']);
      output = result.stdout + result.stderr;
    }
    expect(output).toContain('Settings that do not need a new revision');
    expect(output).toContain('Git repository URL');
    expect(output).toContain('resourceSpec');
  });
});

describe('status subresource', () => {
  const params = (name: string) => ({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: AGENT_DEPLOYMENT.plural,
    name,
  });

  it('a status write changes status only', async () => {
    const created = (await objects.create(externalImage('status-write'))) as Obj;
    const body = structuredClone(created);
    body.spec.deletionPolicy = 'Orphan';
    body.status = { deploymentId: 'd-1', deploymentStatus: 'READY' };
    await custom.replaceNamespacedCustomObjectStatus({ ...params('status-write'), body });
    const after = (await custom.getNamespacedCustomObject(params('status-write'))) as Obj;
    expect(after.status).toEqual({ deploymentId: 'd-1', deploymentStatus: 'READY' });
    expect(after.spec?.deletionPolicy).toBe('Delete');
  });

  it('a main-resource write changes spec only', async () => {
    const created = (await objects.create(externalImage('spec-write'))) as Obj;
    const body = structuredClone(created);
    body.spec.deletionPolicy = 'Orphan';
    body.status = { deploymentId: 'd-2' };
    await custom.replaceNamespacedCustomObject({ ...params('spec-write'), body });
    const after = (await custom.getNamespacedCustomObject(params('spec-write'))) as Obj;
    expect(after.spec?.deletionPolicy).toBe('Orphan');
    expect(after.status).toBeUndefined();
  });
});
