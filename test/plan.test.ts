/**
 * The plan is what happens (issue 18): for each example, and for seeded random edits to it, `plan` is run
 * against the real API server and the simulator, the change is then applied with the controller running,
 * and the simulator's log of writes is compared with the plan: every predicted call happens, no other
 * call does, and "new revision" is predicted exactly. Secret values never appear in any output. The
 * same for adoption by id, a create left unanswered, pause, an invalid annotation, and deleting objects
 * removed from the input (`--prune`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { GROUP, VERSION } from '../src/api/group.ts';
import { Annotation } from '../src/api/names.ts';
import type { ControlPlaneClient } from '../src/controlplane/client.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { valueAt } from '../src/lib/paths.ts';
import { formatPlan, OUTPUT_FORMATS } from '../src/plan/format.ts';
import type { InputSecret } from '../src/plan/inputs.ts';
import {
  type InputObject,
  isChange,
  type PlanEntry,
  type PlanKind,
  type PlanWorld,
} from '../src/plan/model.ts';
import { planObjects } from '../src/plan/plan.ts';
import {
  DEFAULT_API_KEY,
  EXAMPLE_TEMPLATES,
  EXAMPLES_DIR_TEMPLATE,
  type RequestRecord,
} from '../src/simulator/index.ts';
import { REPO } from './packaging-helpers.ts';
import { deleteAgd, eventually, getAgd, type Harness, sleep, startHarness } from './support/harness.ts';
import { planWorld } from './support/plan-world.ts';

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

const world = (): PlanWorld => planWorld(h, DIGEST_KEY, clients);

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

/** The controller is done with the object: its generation observed, Ready or Stalled. */
const readyOrStalled = (o: AgentDeployment) =>
  o.status?.observedGeneration === o.metadata.generation &&
  (o.status?.conditions?.some(
    (c) =>
      (c.type === 'Ready' || c.type === 'Stalled') &&
      c.status === 'True' &&
      c.observedGeneration === o.metadata.generation,
  ) ??
    false);

/** Waits until the controller is done with the object (`done`, by default Ready or Stalled), then quiet. */
async function settled(
  name: string,
  expectedWrites: number,
  since: number,
  done: (o: AgentDeployment) => boolean = readyOrStalled,
): Promise<AgentDeployment> {
  await eventually(async () => writes(since).length >= expectedWrites, `${name}: ${expectedWrites} write(s)`);
  const settledObject = () =>
    eventually(async () => {
      const o = await getAgd(h, name);
      return done(o) ? o : undefined;
    }, `${name} settled`);
  await settledObject();
  await sleep(2_500); // several polls (1s): an unpredicted call has time to show
  // Read again: an annotation-only change bumps no generation, so the first read can still be the
  // status of the pass before it (Stalled on the old annotation), which `done` cannot tell apart.
  return settledObject();
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

/**
 * What the examples' edits never meet: adoption by id, a create left unanswered, pause, an invalid
 * annotation, and deletion (--prune). Each object is made from the image example under a name of its
 * own, with Secrets of its own (an example's Secret rewritten would move the examples' objects too), and
 * the label --prune selects.
 */
describe('the plan is what happens: ownership, annotations and deletion', () => {
  const PRUNE_LABEL = 'plan-test/prune';
  const objects = new Map<string, { agd: Doc & { kind: PlanKind }; secrets: Doc[] }>();

  function fresh(name: string): { agd: Doc & { kind: PlanKind }; secrets: Doc[] } {
    const docs = example('agentdeployment-external-image.yaml');
    const secrets = docs
      .filter((d) => d.kind === 'Secret')
      .map((d) => ({ ...d, metadata: { ...d.metadata, name: `${name}-${d.metadata.name}` } }));
    let specText = JSON.stringify(docs.find((d) => d.kind === 'AgentDeployment')?.spec);
    for (const d of docs.filter((d) => d.kind === 'Secret'))
      specText = specText.replaceAll(`"${d.metadata.name}"`, `"${name}-${d.metadata.name}"`);
    const agd = {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'AgentDeployment' as const,
      metadata: { name, namespace: h.ns, labels: { [PRUNE_LABEL]: 'yes' } },
      // The example orphans; these delete unless a step says otherwise.
      spec: { ...JSON.parse(specText), name, deletionPolicy: 'Delete' },
    };
    const made = { agd, secrets };
    objects.set(name, made);
    return made;
  }

  /** Plans the object, applies it with the controller running, and checks the simulator saw the plan. */
  async function planThenApply(
    label: string,
    { agd, secrets }: { agd: Doc & { kind: PlanKind }; secrets: Doc[] },
    done?: (o: AgentDeployment) => boolean,
  ): Promise<PlanEntry> {
    for (const s of secrets) expect(await apply(s), label).toBeUndefined();
    const [entry] = await planObjects([agd], h.ns, world(), secrets.map(inputSecret));
    if (!entry) throw new Error('no plan entry');
    const since = h.sim.requests().length;
    const before = entry.deploymentId
      ? h.sim.deployments().find((d) => d.id === entry.deploymentId)?.latest_revision_id
      : undefined;
    expect(await apply(agd), label).toBeUndefined();
    const obj = await settled(agd.metadata.name, isChange(entry) ? 1 : 0, since, done);
    expectPlanned(entry, since, before);
    // Sending nothing is also what a stall does: the condition tells them apart.
    const stalled = obj.status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True');
    expect(stalled?.reason, `${label}: Stalled`).toBe(entry.action === 'stall' ? entry.reason : undefined);
    return entry;
  }

  /** A deployment made outside the operator, from the create the plan shows (its image `image`). */
  async function createElsewhere(request: unknown, image: string): Promise<string> {
    const body = JSON.parse(JSON.stringify(request));
    body.source_revision_config.image_uri = image;
    const response = await fetch(`${h.sim.url}/v2/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Api-Key': DEFAULT_API_KEY },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  const conditionIs = (type: string, reason: string) => (o: AgentDeployment) =>
    o.status?.conditions?.some((c) => c.type === type && c.status === 'True' && c.reason === reason) ?? false;

  it('adoption by id: the adopted deployment is patched to the spec, and nothing else is sent', {
    timeout: 120_000,
  }, async () => {
    const made = fresh('plan-adopt');
    for (const s of made.secrets) expect(await apply(s)).toBeUndefined();
    const [create] = await planObjects([made.agd], h.ns, world(), made.secrets.map(inputSecret));
    expect(create?.action).toBe('create');
    const id = await createElsewhere(create?.request, 'registry.example.com/research-agent:0');
    made.agd.metadata.annotations = { [Annotation.AdoptDeploymentId]: id };
    const entry = await planThenApply('adopt', made);
    expect(entry).toMatchObject({ action: 'patch', deploymentId: id });
    expect(entry.changes?.map((c) => c.field)).toContain('source_revision_config.image_uri');
    expect((await getAgd(h, 'plan-adopt')).status?.deploymentId).toBe(id);
  });

  it('a create left unanswered: the deployment of its name made after the mark is taken, not created again', {
    timeout: 120_000,
  }, async () => {
    const made = fresh('plan-pending');
    made.agd.metadata.annotations = { [Annotation.Paused]: 'true' };
    for (const s of made.secrets) expect(await apply(s)).toBeUndefined();
    expect(await apply(made.agd)).toBeUndefined();
    await eventually(async () => conditionIs('Paused', 'Paused')(await getAgd(h, 'plan-pending')), 'paused');
    // As a crash leaves it: the mark written before the POST, the POST committed, its answer lost.
    await kubeRequest(h.access, {
      method: 'PATCH',
      path: `/apis/${GROUP}/${VERSION}/namespaces/${h.ns}/agentdeployments/plan-pending/status`,
      body: { status: { createPendingSince: new Date(Date.now() - 1_000).toISOString() } },
      contentType: 'application/merge-patch+json',
    });
    delete made.agd.metadata.annotations;
    const [create] = await planObjects([made.agd], h.ns, world(), made.secrets.map(inputSecret));
    const image = (spec(made.agd).sourceRevisionConfig as { imageUri: string }).imageUri;
    const id = await createElsewhere(create?.request, image);
    const entry = await planThenApply('pending create', made);
    expect(entry.deploymentId).toBe(id);
    expect(['none', 'patch']).toContain(entry.action);
    expect(h.sim.deployments().filter((d) => d.name === 'plan-pending')).toHaveLength(1);
  });

  it('paused, then an invalid poll-interval annotation, then neither: none, stall, then the patch', {
    timeout: 180_000,
  }, async () => {
    const made = fresh('plan-pause');
    expect((await planThenApply('create', made)).action).toBe('create');
    const image = spec(made.agd).sourceRevisionConfig as Record<string, unknown>;
    image.imageUri = 'registry.example.com/research-agent:paused';
    made.agd.metadata.annotations = { [Annotation.Paused]: 'true' };
    const paused = await planThenApply('paused', made, conditionIs('Paused', 'Paused'));
    expect(paused).toMatchObject({ action: 'none' });
    expect(paused.message).toContain('paused');
    made.agd.metadata.annotations = { [Annotation.PollInterval]: '1ms' };
    const invalid = await planThenApply(
      'invalid poll interval',
      made,
      conditionIs('Stalled', 'InvalidAnnotation'),
    );
    expect(invalid).toMatchObject({ action: 'stall', reason: 'InvalidAnnotation' });
    made.agd.metadata.annotations = { [Annotation.PollInterval]: '30s' };
    const patched = await planThenApply('annotations fixed', made);
    expect(patched).toMatchObject({ action: 'patch', createsRevision: true });
  });

  it('deletion (--prune): objects removed from the input are planned, deleted, and only the planned DELETE is sent', {
    timeout: 180_000,
  }, async () => {
    const pending = objects.get('plan-pending');
    const kept = objects.get('plan-pause');
    if (!pending || !kept || !objects.has('plan-adopt')) throw new Error('the earlier steps did not run');
    // One to orphan: its policy changed first (nothing for the platform).
    pending.agd.spec = { ...(pending.agd.spec as object), deletionPolicy: 'Orphan' };
    expect((await planThenApply('deletionPolicy Orphan', pending)).action).toBe('none');

    const entries = await planObjects([kept.agd], h.ns, world(), kept.secrets.map(inputSecret), {
      selector: `${PRUNE_LABEL}=yes`,
    });
    const removed = entries.filter((e) => e.removed);
    expect(removed.map((e) => `${e.name} ${e.action}`).sort()).toEqual([
      'plan-adopt delete',
      'plan-pending orphan',
    ]);
    const deleting = removed.find((e) => e.action === 'delete') as PlanEntry;
    const adoptedId = (await getAgd(h, 'plan-adopt')).status?.deploymentId;
    expect(deleting.deploymentId).toBe(adoptedId);
    const orphanedId = (await getAgd(h, 'plan-pending')).status?.deploymentId;

    const since = h.sim.requests().length;
    for (const e of removed) await deleteAgd(h, e.name);
    for (const e of removed) {
      await eventually(
        () =>
          getAgd(h, e.name).then(
            () => false,
            () => true,
          ),
        `${e.name} gone`,
      );
    }
    await sleep(2_500);
    const planned = removed
      .filter((e) => e.action === 'delete')
      .map((e) => `DELETE /v2/deployments/${e.deploymentId}`);
    expect(
      writes(since).map((r) => `${r.method} ${r.path}`),
      'the planned DELETEs, and nothing else',
    ).toEqual(planned);
    expect(h.sim.deployments().some((d) => d.id === adoptedId)).toBe(false);
    expect(h.sim.deployments().some((d) => d.id === orphanedId)).toBe(true);
  });
});
