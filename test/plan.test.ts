/**
 * The plan is what happens (issue 18): for each example, and for seeded random edits to it, `plan` is run
 * against the real API server and the simulator, the change is then applied with the controller running,
 * and the simulator's log of writes is compared with the plan: every predicted call happens, no other
 * call does, and "new revision" is predicted exactly. Secret values never appear in any output.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { GROUP, VERSION } from '../src/api/group.ts';
import { ControlPlaneClient } from '../src/controlplane/client.ts';
import type { Credentials } from '../src/controlplane/credentials.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { valueAt } from '../src/lib/paths.ts';
import { formatPlan, OUTPUT_FORMATS } from '../src/plan/format.ts';
import type { InputSecret } from '../src/plan/inputs.ts';
import { kubePlanReads } from '../src/plan/kube.ts';
import type { InputObject, PlanEntry, PlanKind, PlanWorld } from '../src/plan/model.ts';
import { planObjects } from '../src/plan/plan.ts';
import {
  DEFAULT_API_KEY,
  EXAMPLE_TEMPLATES,
  EXAMPLES_DIR_TEMPLATE,
  type RequestRecord,
} from '../src/simulator/index.ts';
import { REPO } from './packaging-helpers.ts';
import { eventually, getAgd, type Harness, sleep, startHarness } from './support/harness.ts';

const DIGEST_KEY = 'plan-test-secrets-digest-key';
const EXAMPLES = join(REPO, 'examples');
/** Random edits per example after one of each kind; the seed makes a failure reproducible. */
const EXTRA_EDITS = 3;
const SEED = 20261124;

type Doc = InputObject & { data?: Record<string, string>; stringData?: Record<string, string> };

let h: Harness;
const clients: ControlPlaneClient[] = [];

beforeAll(async () => {
  h = await startHarness('plan', {
    env: { SECRETS_DIGEST_KEY: DIGEST_KEY },
    simulator: { templates: [...EXAMPLE_TEMPLATES, EXAMPLES_DIR_TEMPLATE] },
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await h?.stop();
});

function world(): PlanWorld {
  return {
    kube: kubePlanReads(h.access),
    defaultCredentials: { baseUrl: h.sim.url, apiKey: DEFAULT_API_KEY },
    digestKey: DIGEST_KEY,
    controlPlane(credentials: Credentials) {
      const client = new ControlPlaneClient({ credentials });
      clients.push(client);
      return {
        getDeployment: (id) => client.getDeployment(id),
        findDeploymentsByName: (name) => client.findDeploymentsByName(name),
        listAllSandboxTemplates: () => client.listAllSandboxTemplates(),
      };
    },
  };
}

/** The documents of an example file, moved into the test's namespace. */
function example(file: string): Doc[] {
  const docs = yaml.loadAll(readFileSync(join(EXAMPLES, file), 'utf8')) as Doc[];
  return docs.map((d) => ({ ...d, metadata: { ...d.metadata, namespace: h.ns } }));
}

const pathOf = (d: Doc) =>
  d.kind === 'Secret'
    ? `/api/v1/namespaces/${h.ns}/secrets/${d.metadata.name}`
    : `/apis/${GROUP}/${VERSION}/namespaces/${h.ns}/${d.kind === 'AgentDeployment' ? 'agentdeployments' : 'sandboxtemplates'}/${d.metadata.name}`;

const inputSecret = (d: Doc): InputSecret => ({
  namespace: d.metadata.namespace,
  name: d.metadata.name,
  data: Object.fromEntries(
    Object.entries(d.stringData ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  ),
});

/** Server-side apply, as kubectl apply --server-side and Argo CD do; the API server's refusal, if any. */
async function apply(d: Doc): Promise<string | undefined> {
  try {
    await kubeRequest(h.access, {
      method: 'PATCH',
      path: pathOf(d),
      query: { fieldManager: 'plan-test', force: 'true' },
      body: d,
      contentType: 'application/apply-patch+yaml',
    });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

const writes = (since: number): RequestRecord[] =>
  h.sim
    .requests()
    .slice(since)
    .filter((r) => r.method !== 'GET' && r.route.startsWith('/v2/deployments'));

/** Two-level paths of a request body (`source_config.resource_spec`, `secrets`): what a PATCH carries. */
function carried(body: unknown): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (value && typeof value === 'object' && !Array.isArray(value))
      for (const sub of Object.keys(value)) out.push(`${key}.${sub}`);
    else out.push(key);
  }
  return out.sort();
}
const twoLevels = (field: string) => field.split('.').slice(0, 2).join('.');

/** Waits until the controller is done with the object: its generation observed, Ready or Stalled, quiet. */
async function settled(name: string, expectedWrites: number, since: number): Promise<AgentDeployment> {
  await eventually(async () => writes(since).length >= expectedWrites, `${name}: ${expectedWrites} write(s)`);
  const obj = await eventually(async () => {
    const o = await getAgd(h, name);
    const done = o.status?.conditions?.some(
      (c) =>
        (c.type === 'Ready' || c.type === 'Stalled') &&
        c.status === 'True' &&
        c.observedGeneration === o.metadata.generation,
    );
    return done && o.status?.observedGeneration === o.metadata.generation ? o : undefined;
  }, `${name} settled`);
  await sleep(2_500); // several polls (1s): an unpredicted call has time to show
  return obj;
}

/** Checks that what the simulator saw since `since` is exactly what the entry predicted. */
function expectPlanned(entry: PlanEntry, since: number, revisionBefore: string | null | undefined): void {
  const seen = writes(since);
  const what = `${entry.namespace}/${entry.name}: ${entry.action} ${entry.message}`;
  if (entry.action === 'create') {
    expect(
      seen.map((r) => `${r.method} ${r.route}`),
      what,
    ).toEqual(['POST /v2/deployments']);
    const body = seen[0]?.body as { secrets: { name: string; value: string }[] };
    expect({ ...body, secrets: body.secrets.map((s) => ({ ...s, value: '(set)' })) }, what).toEqual(
      entry.request,
    );
    return;
  }
  if (entry.action === 'patch') {
    expect(
      seen.map((r) => `${r.method} ${r.path}`),
      what,
    ).toEqual([`PATCH /v2/deployments/${entry.deploymentId}`]);
    const body = seen[0]?.body;
    expect(carried(body), what).toEqual(
      [...new Set((entry.changes ?? []).map((c) => twoLevels(c.field)))].sort(),
    );
    for (const c of entry.changes ?? []) {
      if (c.field !== 'secrets') expect(valueAt(body, c.field) ?? null, `${what}: ${c.field}`).toEqual(c.to);
    }
    const after = h.sim.deployments().find((d) => d.id === entry.deploymentId)?.latest_revision_id;
    expect(after !== revisionBefore, `${what}: new revision`).toBe(entry.createsRevision);
    return;
  }
  expect(seen, what).toEqual([]);
}

/** A small seeded generator (mulberry32), so a failing sequence can be replayed. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Edit = { name: string; apply(agd: Doc, secrets: Doc[], n: number): void };
const spec = (d: Doc) => d.spec as Record<string, Record<string, unknown>> & Record<string, unknown>;
const resourceSpec = (d: Doc) =>
  (spec(d).sourceConfig as Record<string, Record<string, unknown>>).resourceSpec;

const EDIT_KINDS: Edit[] = [
  {
    name: 'the image or git ref',
    apply(d, _s, n) {
      const rev = spec(d).sourceRevisionConfig as Record<string, unknown>;
      if (rev.imageUri) rev.imageUri = `registry.example.com/agent:${n}`;
      else rev.repoRef = `release-${n % 3}`;
    },
  },
  {
    name: 'the cpu (sometimes to the value it has)',
    apply(d, _s, n) {
      const rs = resourceSpec(d);
      if (rs) rs.cpu = [0.5, 1, 1][n % 3];
    },
  },
  {
    name: 'a label, added or removed',
    apply(d, _s, n) {
      const rs = resourceSpec(d);
      if (!rs) return;
      if (n % 2) rs.labels = { ...(rs.labels as object), tier: `t${n % 2}` };
      else delete rs.labels;
    },
  },
  {
    name: 'a secret value',
    apply(_d, secrets, n) {
      const secret = secrets[0];
      if (!secret) return;
      const data = secret.stringData ?? {};
      const key = Object.keys(data)[0] as string;
      secret.stringData = { ...data, [key]: `rotated-secret-value-${n}` };
    },
  },
  {
    name: 'a field that builds no revision (buildOnPush, customUrl)',
    apply(d, _s, n) {
      const sc = spec(d).sourceConfig as Record<string, unknown>;
      if ((spec(d).source as unknown) === 'repo_host') sc.buildOnPush = !sc.buildOnPush;
      else sc.customUrl = `https://agent-${n}.example.com`;
    },
  },
  {
    name: 'an annotation only',
    apply(d, _s, n) {
      d.metadata.annotations = { ...d.metadata.annotations, 'example.com/note': `n${n}` };
    },
  },
];

const AGD_FILES = readdirSync(EXAMPLES).filter((f) => f.startsWith('agentdeployment-'));

describe('the plan is what happens', () => {
  const outputs: string[] = [];

  it.each(AGD_FILES)(
    '%s: created, then random edits, each planned and applied',
    { timeout: 300_000 },
    async (file) => {
      const docs = example(file);
      const agd = docs.find((d) => d.kind === 'AgentDeployment') as Doc & { kind: PlanKind };
      const secrets = docs.filter((d) => d.kind === 'Secret');
      for (const s of secrets) expect(await apply(s)).toBeUndefined();
      const next = random(SEED + file.length);

      const step = async (label: string) => {
        const [entry] = await planObjects([agd], h.ns, world(), secrets.map(inputSecret));
        if (!entry) throw new Error('no plan entry');
        for (const format of OUTPUT_FORMATS) outputs.push(formatPlan([entry], format, false));
        const since = h.sim.requests().length;
        const before = entry.deploymentId
          ? h.sim.deployments().find((d) => d.id === entry.deploymentId)?.latest_revision_id
          : undefined;
        for (const s of secrets) expect(await apply(s), label).toBeUndefined();
        const refusal = await apply(agd);
        if (entry.action === 'refused') expect(refusal, label).toBeDefined();
        else {
          expect(refusal, label).toBeUndefined();
          await settled(
            agd.metadata.name,
            entry.action === 'create' || entry.action === 'patch' ? 1 : 0,
            since,
          );
        }
        expectPlanned(entry, since, before);
        return entry;
      };

      expect((await step('first apply')).action).toBe('create');
      // Every kind of edit once, in a seeded order, then a few more at random.
      const order = [...EDIT_KINDS].sort(() => next() - 0.5);
      for (let i = 0; i < EXTRA_EDITS; i++)
        order.push(EDIT_KINDS[Math.floor(next() * EDIT_KINDS.length)] as Edit);
      const revisions = new Set<boolean | undefined>();
      for (const [i, edit] of order.entries()) {
        edit.apply(agd, secrets, i + Math.floor(next() * 10));
        const entry = await step(`edit ${i + 1}: ${edit.name}`);
        if (entry.action === 'patch') revisions.add(entry.createsRevision);
      }
      // Unchanged input plans nothing, and nothing happens.
      expect((await step('the same again')).action).toBe('none');
      // Patches of both sorts were met: some build a revision, some do not.
      expect([...revisions].sort()).toEqual([false, true]);
    },
  );

  it('an immutable field changed: refused or stalled, and nothing is sent', {
    timeout: 120_000,
  }, async () => {
    const agd = example(AGD_FILES[0] as string).find((d) => d.kind === 'AgentDeployment') as Doc & {
      kind: PlanKind;
    };
    (spec(agd).sourceConfig as Record<string, unknown>).listenerId = '11111111-1111-4111-8111-111111111111';
    const [entry] = await planObjects([agd], h.ns, world());
    expect(['refused', 'stall']).toContain(entry?.action);
    expect(entry?.message).toMatch(/listener/i);
  });

  it('no secret value appears in any output', () => {
    expect(outputs.length).toBeGreaterThan(0);
    const values = AGD_FILES.flatMap((f) =>
      example(f)
        .filter((d) => d.kind === 'Secret')
        .flatMap((d) => Object.values(d.stringData ?? {})),
    );
    values.push('rotated-secret-value');
    for (const text of outputs) for (const v of values) expect(text).not.toContain(v);
  });
});

it('a SandboxTemplate: the drift the controller would report', async () => {
  const [template] = example('sandboxtemplate.yaml').filter((d) => d.kind === 'SandboxTemplate') as (Doc & {
    kind: PlanKind;
  })[];
  if (!template) throw new Error('no SandboxTemplate example');
  const [inSync] = await planObjects([template], h.ns, world());
  expect(inSync?.action).toBe('none');
  const drifted = {
    ...template,
    spec: { ...(template.spec as object), image: 'docker.io/library/python:2.7' },
  };
  const [entry] = await planObjects([drifted], h.ns, world());
  expect(entry?.action).toBe('stall');
  expect(entry?.reason).toBe('DriftDetected');
  expect(entry?.drift?.map((d) => d.field)).toContain('image');
});
