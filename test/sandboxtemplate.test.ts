/**
 * SandboxTemplate end to end: the real API server, the operator in-process, the simulator seeded with
 * templates. Each test asserts on the object's status and events, and on the simulator's request log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, SANDBOX_TEMPLATE, VERSION } from '../src/api/group.ts';
import type { SandboxTemplate } from '../src/api/sandboxtemplate.ts';
import { kubeRequest } from '../src/kube/request.ts';
import type { SandboxTemplateSeed } from '../src/simulator/index.ts';
import { eventually, type Harness, listEvents, sleep, startHarness } from './support/harness.ts';

const ROUTE = '/v2/sandboxes/templates';
const HEADER_VALUE = 'Bearer sk-seeded-proxy-credential-7f3a9c';
const SBT_PATH = (ns: string) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${SANDBOX_TEMPLATE.plural}`;

async function createSbt(h: Harness, name: string, spec: Record<string, unknown>): Promise<void> {
  await kubeRequest(h.access, {
    method: 'POST',
    path: SBT_PATH(h.ns),
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: SANDBOX_TEMPLATE.kind, metadata: { name }, spec },
  });
}

async function getSbt(h: Harness, name: string): Promise<SandboxTemplate> {
  return (await kubeRequest(h.access, {
    method: 'GET',
    path: `${SBT_PATH(h.ns)}/${name}`,
  })) as SandboxTemplate;
}

async function listSbt(h: Harness): Promise<SandboxTemplate[]> {
  return (
    (await kubeRequest(h.access, { method: 'GET', path: SBT_PATH(h.ns) })) as { items: SandboxTemplate[] }
  ).items;
}

const cond = (obj: SandboxTemplate, type: string) => obj.status?.conditions?.find((c) => c.type === type);

/** Waits until the object's Ready condition, for its current generation, has this status and reason. */
function waitFor(h: Harness, name: string, status: 'True' | 'False', reason?: string) {
  return eventually(
    async () => {
      const obj = await getSbt(h, name);
      const ready = cond(obj, 'Ready');
      return ready?.status === status &&
        (reason === undefined || ready.reason === reason) &&
        obj.status?.observedGeneration === obj.metadata.generation
        ? obj
        : undefined;
    },
    `${name} Ready=${status} ${reason ?? ''}`,
  );
}

const fillers = (n: number): SandboxTemplateSeed[] =>
  Array.from({ length: n }, (_, i) => ({ name: `filler-${String(i).padStart(4, '0')}`, image: 'busybox' }));

const BASE: SandboxTemplateSeed[] = [
  {
    name: 'python-3.12',
    image: 'docker.io/library/python:3.12-slim',
    resources: { cpu: '500m', memory: '512Mi', storage: '2Gi' },
    volume_mounts: [{ volume_name: 'workspace', mount_path: '/workspace' }],
    proxy_config: { rules: [], no_proxy: ['localhost'] },
    registry_name: 'sim-registry',
    registry_id: '0b7e4c1e-4f0a-4d3b-8c7e-1f2a3b4c5d6e',
  },
  { name: 'python-3.12-gpu', image: 'python:gpu' },
  { name: 'PYTHON-3.12', image: 'python:upper' },
  { id: '11111111-1111-4111-8111-111111111111', name: 'twin', image: 'a' },
  { id: '22222222-2222-4222-8222-222222222222', name: 'twin', image: 'b' },
  {
    name: 'drift-me',
    image: 'img:1',
    resources: { cpu: '500m', memory: '1024Mi', storage: '4Gi' },
  },
  {
    name: 'with-proxy',
    image: 'node:24',
    proxy_config: {
      rules: [
        {
          name: 'github-api',
          match_hosts: ['api.github.com'],
          inject_headers: { Authorization: HEADER_VALUE },
          match_paths: ['/repos/*'],
          enabled: true,
        },
      ],
      no_proxy: [],
    },
  },
];
// 1,050 fillers at page size 500: the last template is listed only on the third page (offset 1000).
const MAIN = [...BASE, ...fillers(1050), { name: 'deep-page', image: 'deep:1' }];

describe('observing templates', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sbt', { simulator: { templates: MAIN } });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('resolves the exact name among the listing substring matches', async () => {
    await createSbt(h, 'py', { templateName: 'python-3.12', image: 'docker.io/library/python:3.12-slim' });
    const obj = await waitFor(h, 'py', 'True');
    expect(obj.status).toMatchObject({
      templateId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      registryName: 'sim-registry',
      registryId: '0b7e4c1e-4f0a-4d3b-8c7e-1f2a3b4c5d6e',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      observed: {
        image: 'docker.io/library/python:3.12-slim',
        resources: { cpu: '500m', memory: '512Mi', storage: '2Gi' },
        volumeMounts: [{ volumeName: 'workspace', mountPath: '/workspace' }],
        proxyRules: [],
        noProxy: ['localhost'],
      },
      drift: [],
    });
    expect(cond(obj, 'Drifted')).toMatchObject({ status: 'False' });
    expect(obj.metadata.finalizers ?? []).toEqual([]);
  });

  it('reports two templates with the exact name instead of picking one', async () => {
    await createSbt(h, 'twin', { templateName: 'twin' });
    const obj = await waitFor(h, 'twin', 'False', 'Ambiguous');
    const ready = cond(obj, 'Ready');
    expect(ready?.message).toContain('11111111-1111-4111-8111-111111111111');
    expect(ready?.message).toContain('22222222-2222-4222-8222-222222222222');
    expect(obj.status?.templateId).toBeUndefined();
  });

  it('finds a template listed only on the third page', async () => {
    await createSbt(h, 'deep', { templateName: 'deep-page', image: 'deep:1' });
    const obj = await waitFor(h, 'deep', 'True');
    expect(obj.status?.observed?.image).toBe('deep:1');
    const offsets = new Set(h.sim.requests({ method: 'GET', route: ROUTE }).map((r) => r.query.offset));
    expect(offsets).toEqual(new Set(['0', '500', '1000']));
  });

  it('is NotFound until the template appears, then Ready on a later poll', async () => {
    await createSbt(h, 'late', { templateName: 'late-template' });
    const missing = await waitFor(h, 'late', 'False', 'NotFound');
    expect(cond(missing, 'Ready')?.message).toContain('late-template');
    h.sim.setTemplates([...MAIN, { name: 'late-template', image: 'late:1' }]);
    const found = await waitFor(h, 'late', 'True');
    expect(found.status?.observed?.image).toBe('late:1');
  });

  it('reports drift in image and memory, not in cpu written as 0.5 against 500m', async () => {
    await createSbt(h, 'drifted', {
      templateName: 'drift-me',
      image: 'img:2',
      resources: { cpu: '0.5', memory: '2Gi', storage: '4096Mi' },
    });
    const obj = await waitFor(h, 'drifted', 'False', 'DriftDetected');
    expect(obj.status?.drift).toEqual([
      { field: 'image', expected: 'img:2', observed: 'img:1' },
      { field: 'resources.memory', expected: '2Gi', observed: '1Gi' },
    ]);
    expect(obj.status?.observed?.resources).toEqual({ cpu: '500m', memory: '1Gi', storage: '4Gi' });
    expect(cond(obj, 'Drifted')).toMatchObject({ status: 'True', reason: 'DriftDetected' });
    const events = await eventually(async () => {
      const list = await listEvents(h, 'drifted');
      return list.some((e) => e.reason === 'DriftDetected') ? list : undefined;
    }, 'a DriftDetected event');
    expect(events.find((e) => e.reason === 'DriftDetected')?.type).toBe('Warning');
    // Observe only: nothing but listings reached the control plane.
    expect(h.sim.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('shows which headers a proxy rule injects, never their values', async () => {
    await createSbt(h, 'proxy-ok', {
      templateName: 'with-proxy',
      proxyRules: [
        { name: 'github-api', matchHosts: ['api.github.com'], injectHeaderNames: ['authorization'] },
      ],
    });
    await createSbt(h, 'proxy-drift', {
      templateName: 'with-proxy',
      proxyRules: [{ name: 'github-api', injectHeaderNames: ['X-Other'] }],
    });
    const ok = await waitFor(h, 'proxy-ok', 'True');
    expect(ok.status?.observed?.proxyRules).toEqual([
      {
        name: 'github-api',
        matchHosts: ['api.github.com'],
        matchPaths: ['/repos/*'],
        enabled: true,
        injectedHeaderNames: ['Authorization'],
      },
    ]);
    const drifted = await waitFor(h, 'proxy-drift', 'False', 'DriftDetected');
    expect(drifted.status?.drift).toEqual([
      { field: 'proxyRules[github-api].injectHeaderNames', expected: 'x-other', observed: 'authorization' },
    ]);
    const events = [...(await listEvents(h, 'proxy-ok')), ...(await listEvents(h, 'proxy-drift'))];
    const everything = JSON.stringify([ok, drifted, events, h.logs]);
    expect(everything).toContain('Authorization');
    expect(everything).not.toContain('sk-seeded-proxy-credential');
  });

  it('deletes the object without touching the control plane', async () => {
    await createSbt(h, 'short-lived', { templateName: 'python-3.12' });
    await waitFor(h, 'short-lived', 'True');
    await kubeRequest(h.access, { method: 'DELETE', path: `${SBT_PATH(h.ns)}/short-lived` });
    await eventually(async () => !(await listSbt(h)).some((o) => o.metadata.name === 'short-lived'), 'gone');
    expect(h.sim.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

describe('import mode', () => {
  let h: Harness;
  const templates: SandboxTemplateSeed[] = [
    { name: 'python-3.12', image: 'python' },
    { name: 'Python_3.12', image: 'python-upper' },
    { name: 'gone-soon', image: 'gone' },
  ];
  beforeAll(async () => {
    h = await startHarness('sbt-import', { simulator: { templates } });
    // The import namespace is the harness's own, known only once it exists.
    await h.operator.stop(1_000);
    await h.startOperator({ IMPORT_TEMPLATES_NAMESPACE: h.ns });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('creates one labelled observe-only object per listed template', async () => {
    const objects = await eventually(async () => {
      const list = await listSbt(h);
      return list.length === 3 ? list : undefined;
    }, 'three imported objects');
    const byTemplate = new Map(objects.map((o) => [o.spec.templateName, o]));
    expect([...byTemplate.keys()].sort()).toEqual(['Python_3.12', 'gone-soon', 'python-3.12']);
    for (const o of objects) {
      expect(o.metadata.labels?.['deploy.agents.dev/imported']).toBe('true');
      expect(Object.keys(o.spec).sort()).toEqual(['templateName']);
    }
    const names = objects.map((o) => o.metadata.name).sort();
    expect(names).toContain('python-3.12');
    expect(names).toContain('gone-soon');
    expect(names.find((n) => n.startsWith('python-3.12-'))).toMatch(/^python-3\.12-[0-9a-f]{6}$/);
    for (const o of objects) await waitFor(h, o.metadata.name, 'True');
  });

  it('marks an imported object NotFound when its template disappears, and keeps it', async () => {
    h.sim.setTemplates(templates.filter((t) => t.name !== 'gone-soon'));
    const obj = await waitFor(h, 'gone-soon', 'False', 'NotFound');
    expect(obj.metadata.deletionTimestamp).toBeUndefined();
    expect(await listSbt(h)).toHaveLength(3);
  });
});

describe('listing efficiency', () => {
  let h: Harness;
  const POLL_MS = 2_000;
  beforeAll(async () => {
    h = await startHarness('sbt-many', {
      simulator: { templates: [{ name: 'shared', image: 'shared:1' }, ...fillers(20)] },
      env: { POLL_INTERVAL: '2s', RECONCILE_RATE: '100' },
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('serves 50 objects with one listing pass per poll interval', async () => {
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        createSbt(h, `many-${i}`, { templateName: 'shared', image: 'shared:1' }),
      ),
    );
    await eventually(
      async () => {
        const list = await listSbt(h);
        return list.length === 50 && list.every((o) => cond(o, 'Ready')?.status === 'True');
      },
      'all 50 Ready',
      60_000,
    );
    await sleep(POLL_MS); // let the passes that made them Ready settle
    h.sim.resetRequests();
    const versions = async () => (await listSbt(h)).map((o) => o.metadata.resourceVersion).sort();
    const before = await versions();
    const windows = 3;
    await sleep(windows * POLL_MS);
    // One page per pass here (21 templates); 50 objects polling on their own would make ~150.
    const passes = h.sim.requests({ method: 'GET', route: ROUTE }).length;
    expect(passes).toBeGreaterThanOrEqual(1);
    expect(passes).toBeLessThanOrEqual(windows + 1);
    // Steady: newer listings that change nothing write no status.
    expect(await versions()).toEqual(before);
  });
});
