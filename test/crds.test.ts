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
import { AGENT_DEPLOYMENT, GROUP, SANDBOX_TEMPLATE, VERSION } from '../src/api/group.ts';
import * as fixtures from './support/crd-fixtures.ts';
import { INVALID_CASES, VALID_VARIATIONS } from './support/crd-fixtures.ts';
import { at, type Mutate, type Obj, refusal, rs } from './support/crd-objects.ts';
import { createTestNamespace, kubeConfigFromProvided, kubectl } from './support/kube.ts';

const EXAMPLES = join(import.meta.dirname, '..', 'examples');

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

/** The fixtures in this test's namespace. */
const inNamespace = (o: Obj): Obj => ({ ...o, metadata: { ...o.metadata, namespace } });
const repoHost = (name?: string) => inNamespace(fixtures.repoHost(name));
const externalImage = (name?: string) => inNamespace(fixtures.externalImage(name));
const sandboxTemplate = (name?: string) => inNamespace(fixtures.sandboxTemplate(name));

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
  it.each(VALID_VARIATIONS)('accepts %s', async (_what, base, mutate) => {
    const o = inNamespace(base());
    mutate(o);
    expect(await dryRunCreate(o)).toBeUndefined();
  });
});

describe('admission refuses invalid objects', () => {
  it('covers at least 30 rules', () => {
    expect(INVALID_CASES.length).toBeGreaterThanOrEqual(30);
  });

  it.each(INVALID_CASES)('refuses %s', async (_what, base, mutate, expected) => {
    const o = inNamespace(base());
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
    const repoNamed = repoHost('immutable-repo-named');
    repoNamed.spec.name = 'custom-name';
    sources.push(['repo-named', repoNamed]);
    const imageBare = externalImage('immutable-image-bare');
    delete imageBare.spec.sourceConfig;
    sources.push(['image-bare', imageBare]);
    for (const [key, o] of sources) stored.set(key, (await objects.create(o)) as Obj);
  });

  /** Dry-run update of a stored object after `mutate`. */
  const update = async (key: string, mutate: Mutate) => {
    const current = structuredClone((await objects.read(stored.get(key) as Obj)) as Obj);
    mutate(current);
    return refusal(() => objects.replace(current, undefined, 'All'));
  };

  /** The API server's whole refusal of an update of `key`, from its field errors. */
  const refusedWith = (key: string, errors: readonly string[]) => {
    const o = stored.get(key) as Obj;
    const body = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
    return `${o.kind}.${GROUP} ${JSON.stringify(o.metadata.name)} is invalid: ${body}`;
  };
  const immutable = (field: string) => `spec.${field}: Invalid value: spec.${field} is immutable`;

  // Word for word: where each rule sits is the API server's cost, never what a refusal says.
  it.each<[string, string, Mutate, string[]]>([
    [
      'setting spec.name',
      'repo',
      (o) => {
        o.spec.name = 'renamed';
      },
      [immutable('name')],
    ],
    [
      'changing spec.name',
      'repo-named',
      (o) => {
        o.spec.name = 'other-name';
      },
      [immutable('name')],
    ],
    [
      'removing spec.name (it differs from metadata.name)',
      'repo-named',
      (o) => {
        delete o.spec.name;
      },
      [immutable('name')],
    ],
    [
      'changing spec.source',
      'image',
      (o) => {
        o.spec.source = 'repo_host';
      },
      [
        'spec.sourceConfig.resourceSpec: Forbidden: spec.sourceConfig.resourceSpec is only allowed when spec.source is external_image',
        'spec.sourceConfig.listenerId: Forbidden: spec.sourceConfig.listenerId is only allowed when spec.source is external_image',
        'spec.sourceConfig.listenerConfig: Forbidden: spec.sourceConfig.listenerConfig is only allowed when spec.source is external_image',
        'spec.sourceRevisionConfig.imageUri: Forbidden: spec.sourceRevisionConfig.imageUri is only allowed when spec.source is external_image',
        'spec.sourceConfig.repoUrl: Required value: spec.sourceConfig.repoUrl is required when spec.source is repo_host',
        'spec.sourceRevisionConfig.repoRef: Required value: spec.sourceRevisionConfig.repoRef is required when spec.source is repo_host',
        'spec.source: Invalid value: "repo_host": spec.source is immutable',
      ],
    ],
    [
      'changing sourceConfig.integrationId',
      'repo',
      (o) => {
        at(o, 'sourceConfig').integrationId = 'other';
      },
      [immutable('sourceConfig.integrationId')],
    ],
    [
      'removing sourceConfig.integrationId',
      'repo',
      (o) => {
        delete at(o, 'sourceConfig').integrationId;
      },
      [immutable('sourceConfig.integrationId')],
    ],
    [
      'changing sourceConfig.repoUrl',
      'repo',
      (o) => {
        at(o, 'sourceConfig').repoUrl = 'https://github.com/x/y';
      },
      [immutable('sourceConfig.repoUrl')],
    ],
    [
      'changing sourceConfig.deploymentType',
      'repo',
      (o) => {
        at(o, 'sourceConfig').deploymentType = 'prod';
      },
      [immutable('sourceConfig.deploymentType')],
    ],
    [
      'adding sourceConfig.deploymentType',
      'repo-untyped',
      (o) => {
        at(o, 'sourceConfig').deploymentType = 'prod';
      },
      [immutable('sourceConfig.deploymentType')],
    ],
    [
      'removing sourceConfig with its immutable fields (repo_host)',
      'repo',
      (o) => {
        delete o.spec.sourceConfig;
      },
      [
        'spec.sourceConfig.repoUrl: Required value: spec.sourceConfig.repoUrl is required when spec.source is repo_host',
        immutable('sourceConfig.integrationId'),
        immutable('sourceConfig.repoUrl'),
        immutable('sourceConfig.deploymentType'),
      ],
    ],
    [
      'changing sourceConfig.listenerId',
      'image',
      (o) => {
        at(o, 'sourceConfig').listenerId = 'other';
      },
      [immutable('sourceConfig.listenerId')],
    ],
    [
      'changing listenerConfig.k8sNamespace',
      'image',
      (o) => {
        at(o, 'sourceConfig.listenerConfig').k8sNamespace = 'b';
      },
      [immutable('sourceConfig.listenerConfig.k8sNamespace')],
    ],
    [
      'removing listenerConfig',
      'image',
      (o) => {
        delete at(o, 'sourceConfig').listenerConfig;
      },
      [immutable('sourceConfig.listenerConfig.k8sNamespace')],
    ],
    [
      'removing sourceConfig with its immutable fields (external_image)',
      'image',
      (o) => {
        delete o.spec.sourceConfig;
      },
      [immutable('sourceConfig.listenerId'), immutable('sourceConfig.listenerConfig.k8sNamespace')],
    ],
    [
      'adding sourceConfig with an immutable field',
      'image-bare',
      (o) => {
        o.spec.sourceConfig = { listenerId: 'late', listenerConfig: { k8sNamespace: 'late' } };
      },
      [immutable('sourceConfig.listenerId'), immutable('sourceConfig.listenerConfig.k8sNamespace')],
    ],
    [
      'changing SandboxTemplate templateName',
      'template',
      (o) => {
        o.spec.templateName = 'other';
      },
      ['spec.templateName: Invalid value: "other": spec.templateName is immutable'],
    ],
  ])('refuses %s', async (_what, key, mutate, errors) => {
    expect(await update(key, mutate)).toBe(refusedWith(key, errors));
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
      'spec.name kept',
      'repo-named',
      (o) => {
        at(o, 'sourceRevisionConfig').repoRef = 'develop';
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
      'sourceConfig added without an immutable field',
      'image-bare',
      (o) => {
        o.spec.sourceConfig = { customUrl: 'https://agent.example.com' };
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
    // The status sent was dropped: what is there is the CRD's default for a status nobody wrote.
    expect(after.status).toEqual({ observedGeneration: 0 });
  });
});
