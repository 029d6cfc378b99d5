/**
 * The plan's offline validation agrees with the API server on every fixture: the examples, the valid
 * variations and invalid cases of test/crds.test.ts, the nested shapes of test/crds-nested.test.ts,
 * and objects made from the CRD YAML itself: a valid value at every field, and a value breaking each
 * enum, range, length, pattern, item count, required field and forbidden-field rule. The API server
 * judges each twice, as the plan's server-side dry-run apply and as `kubectl apply`'s dry-run create
 * with strict field validation; any verdict (accept/refuse) differing fails the test, and each refusal
 * must read as the API server's. Every check in crds/*.yaml must be broken by at least one fixture,
 * and dropping any one CEL rule from the offline path must make the comparison fail.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CustomResourceDefinition } from '../src/api/crds.ts';
import { AGENT_DEPLOYMENT, GROUP, SANDBOX_TEMPLATE, VERSION } from '../src/api/group.ts';
import type { JsonSchema } from '../src/api/structural.ts';
import { KubeApiError } from '../src/kube/errors.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { kubePlanReads } from '../src/plan/kube.ts';
import type { InputObject } from '../src/plan/model.ts';
import { offlineValidator } from '../src/plan/validation/crd-validator.ts';
import { CHECKED_KEYWORDS } from '../src/plan/validation/openapi.ts';
import { REPO } from './packaging-helpers.ts';
import * as fixtures from './support/crd-fixtures.ts';
import type { Obj } from './support/crd-objects.ts';
import { createTestNamespace, kubeAccessFromProvided } from './support/kube.ts';
import { NESTED_CASES } from './support/nested-shapes.ts';
import {
  breakingEdit,
  checksOf,
  eachField,
  placeAt,
  sample,
  sourceOf,
  wrongType,
} from './support/schema-fixtures.ts';

interface Fixture {
  what: string;
  obj: Obj;
}

/** crds/*.yaml as written by `make generate`: the files a cluster is given. */
const CRDS = readdirSync(join(REPO, 'crds'))
  .sort()
  .map((f) => yaml.load(readFileSync(join(REPO, 'crds', f), 'utf8')) as CustomResourceDefinition);
const schemaOf = (crd: CustomResourceDefinition) =>
  (crd.spec.versions as { schema: { openAPIV3Schema: JsonSchema } }[])[0]?.schema
    .openAPIV3Schema as JsonSchema;
const kindOf = (crd: CustomResourceDefinition) => (crd.spec.names as { kind: string }).kind;
const BASES: Record<string, [string, () => Obj][]> = {
  [AGENT_DEPLOYMENT.kind]: [
    ['external_image', fixtures.externalImage],
    ['repo_host', fixtures.repoHost],
  ],
  [SANDBOX_TEMPLATE.kind]: [['template', fixtures.sandboxTemplate]],
};

/** Nulls, which the API server drops where the schema does not allow them (then defaults). */
const NULL_CASES: [string, (o: Obj) => void][] = [
  ['a null field with a default', (o) => Object.assign(o.spec, { deletionPolicy: null })],
  ['a null optional object', (o) => Object.assign(o.spec, { retry: null })],
  ['a null list', (o) => Object.assign(o.spec, { secrets: null })],
  ['a null list item', (o) => Object.assign(o.spec, { secrets: [null] })],
  ['a null required field', (o) => Object.assign(o.spec, { source: null })],
];

/** The API server's own checks of metadata, valid and invalid: what, edit. */
const METADATA_CASES: [string, (o: Obj) => void][] = [
  ...(
    [
      ['a name with capitals and an underscore', 'Bad_Name'],
      ['a name of 254 characters', 'a'.repeat(254)],
      ['a name of dotted DNS labels', 'agent.v2'],
    ] as const
  ).map(([what, name]): [string, (o: Obj) => void] => [
    what,
    (o) => {
      o.metadata.name = name;
    },
  ]),
  ...(
    [
      ['a prefixed label', { 'app.kubernetes.io/name': 'agent' }],
      ['an empty label value', { tier: '' }],
      ['a label key with a space', { 'bad key': 'x' }],
      ['a label key with two slashes', { 'example.com/a/b': 'x' }],
      ['a label key whose prefix has capitals', { 'Example.com/a': 'x' }],
      ['a label key with an empty prefix', { '/a': 'x' }],
      ['a label key name of 64 characters', { ['k'.repeat(64)]: 'x' }],
      ['a label key prefix of 254 characters', { [`${'p'.repeat(254)}/a`]: 'x' }],
      ['a label value with a space', { tier: 'bad value' }],
      ['a label value of 64 characters', { tier: 'v'.repeat(64) }],
      ['a label value ending in a dash', { tier: 'front-' }],
    ] as const
  ).map(([what, labels]): [string, (o: Obj) => void] => [
    what,
    (o) => {
      o.metadata = { ...o.metadata, labels: { ...labels } } as Obj['metadata'];
    },
  ]),
  ...(
    [
      ['an annotation key with capitals', { 'Example.COM/Note': 'x' }],
      ['an annotation key with a space', { 'bad key': 'x' }],
      ['an annotation key with two slashes', { 'example.com/a/b': 'x' }],
      ['an annotation key name of 64 characters', { ['k'.repeat(64)]: 'x' }],
      ['an annotation key prefix with an underscore', { 'ex_ample.com/a': 'x' }],
      ['annotations over 256 KiB', { big: 'x'.repeat(256 * 1024) }],
    ] as const
  ).map(([what, annotations]): [string, (o: Obj) => void] => [
    what,
    (o) => {
      o.metadata = { ...o.metadata, annotations: { ...annotations } } as Obj['metadata'];
    },
  ]),
];

function allFixtures(): Fixture[] {
  const out: Fixture[] = [];
  const add = (what: string, base: () => Obj, edit: (o: Obj) => void = () => {}) => {
    const obj = base();
    edit(obj);
    out.push({ what, obj });
  };
  for (const file of readdirSync(join(REPO, 'examples'))) {
    const docs = yaml.loadAll(readFileSync(join(REPO, 'examples', file), 'utf8')) as Obj[];
    for (const doc of docs.filter((d) => d.apiVersion === `${GROUP}/${VERSION}`))
      add(`example ${file}`, () => doc);
  }
  for (const [kind, bases] of Object.entries(BASES))
    for (const [name, base] of bases) add(`${kind} ${name}`, base);
  for (const [what, base, edit] of fixtures.VALID_VARIATIONS) add(`valid: ${what}`, base, edit);
  for (const [what, base, edit] of fixtures.INVALID_CASES) add(`invalid: ${what}`, base, edit);
  for (const c of NESTED_CASES) add(`nested: ${c.what}`, fixtures.externalImage, c.mutate);
  for (const [what, edit] of METADATA_CASES) add(`metadata: ${what}`, fixtures.externalImage, edit);
  for (const [what, edit] of NULL_CASES) add(`null: ${what}`, fixtures.externalImage, edit);
  for (const crd of CRDS) {
    const root = schemaOf(crd);
    const bases = BASES[kindOf(crd)] ?? [];
    eachField(root, (at, schema) => {
      if (['', 'apiVersion', 'kind', 'metadata'].includes(at)) return;
      for (const [name, base] of bases)
        add(`sample at ${at} (${name})`, base, placeAt(root, at, sample(schema)));
      const wrong = wrongType(schema);
      if (wrong !== undefined)
        for (const [name, base] of bases)
          add(`wrong type at ${at} (${name})`, base, placeAt(root, at, wrong));
    });
    const { checks, rules } = checksOf(root);
    for (const check of [...checks, ...rules]) {
      const edit = breakingEdit(root, check);
      if (edit) for (const [name, base] of bases) add(`breaks ${sourceOf(check)} (${name})`, base, edit);
    }
  }
  return out;
}

const FIXTURES = allFixtures();
let namespace: string;
/** Each fixture's refusals by the API server: as a server-side apply, and as a strict create. */
const server = new Map<Fixture, { apply: string | undefined; create: string | undefined }>();

/** The fixture as the plan sends it: in the test's namespace. */
const sent = (f: Fixture): InputObject =>
  ({ ...f.obj, metadata: { ...f.obj.metadata, namespace } }) as InputObject;

async function strictCreate(obj: InputObject): Promise<string | undefined> {
  const plural = obj.kind === AGENT_DEPLOYMENT.kind ? AGENT_DEPLOYMENT.plural : SANDBOX_TEMPLATE.plural;
  try {
    await kubeRequest(kubeAccessFromProvided(), {
      method: 'POST',
      path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${plural}`,
      query: { dryRun: 'All', fieldValidation: 'Strict' },
      body: obj,
    });
    return undefined;
  } catch (err) {
    if (err instanceof KubeApiError && (err.status === 422 || err.status === 400)) return err.message;
    throw err;
  }
}

beforeAll(async () => {
  namespace = await createTestNamespace('plan-validation');
  const reads = kubePlanReads(kubeAccessFromProvided());
  const queue = [...FIXTURES];
  const worker = async () => {
    for (let f = queue.shift(); f; f = queue.shift()) {
      const obj = sent(f);
      const [apply, create] = await Promise.all([reads.dryRun(obj), strictCreate(obj)]);
      server.set(f, { apply, create });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
});

type Validator = ReturnType<typeof offlineValidator>;

/** Whether the API server's two ways disagree: a null a server-side apply refuses, a create drops. */
const serverPathsDiffer = (f: Fixture) => {
  const answer = server.get(f);
  return (answer?.apply === undefined) !== (answer?.create === undefined);
};

/**
 * The fixtures on which `validator` and the API server disagree, each with both answers. Offline
 * answers as the server-side apply (the plan's dry run with a cluster), and as the strict create
 * wherever the two agree.
 */
function disagreements(validator: Validator, only: readonly Fixture[] = FIXTURES): string[] {
  const out: string[] = [];
  for (const f of only) {
    const answer = server.get(f);
    if (!answer) throw new Error(`no server answer for ${f.what}`);
    const offline = validator.refusal(sent(f));
    for (const [how, refusal] of Object.entries(answer)) {
      if (how === 'create' && serverPathsDiffer(f)) continue;
      if ((offline === undefined) !== (refusal === undefined))
        out.push(`${f.what}: offline ${offline ?? 'accepts'}; server (${how}) ${refusal ?? 'accepts'}`);
    }
  }
  return out;
}

describe('the offline validation and the API server', () => {
  const validator = offlineValidator();

  it('judge many fixtures, valid and invalid', () => {
    const refused = FIXTURES.filter((f) => server.get(f)?.apply !== undefined).length;
    expect(refused).toBeGreaterThan(300);
    expect(FIXTURES.length - refused).toBeGreaterThan(250);
  });

  it('agree on every fixture', () => {
    expect(disagreements(validator)).toEqual([]);
  });

  it("the API server's two ways differ only on nulls without a default", () => {
    expect(FIXTURES.filter(serverPathsDiffer).map((f) => f.what)).toEqual([
      'null: a null optional object',
      'null: a null list',
    ]);
  });

  it("word each refusal as the API server's server-side apply does", () => {
    const differ: string[] = [];
    for (const f of FIXTURES) {
      const refusal = server.get(f)?.apply;
      if (refusal === undefined) continue;
      const offline = validator.refusal(sent(f));
      const errors = validator.errors(sent(f));
      // A wrong type is refused by server-side apply in its own internals' words ("expected boolean,
      // got &{yes}"); offline words it as a create does. The field must still be the same.
      const typed =
        refusal.startsWith('failed to create typed patch object') && errors.some((e) => e.blocking);
      if (typed) {
        for (const e of errors.filter((e) => e.blocking))
          if (!refusal.includes(`.${e.field}: expected `)) differ.push(`${f.what}: ${e.field} in ${refusal}`);
      } else if (offline !== refusal) differ.push(`${f.what}:\n  offline ${offline}\n  server  ${refusal}`);
    }
    expect(differ).toEqual([]);
  });

  it("word each refusal as kubectl apply's strict create does, an undeclared field and a null aside", () => {
    const differ: string[] = [];
    for (const f of FIXTURES) {
      const refusal = server.get(f)?.create;
      if (refusal === undefined || f.what.startsWith('null:')) continue; // a create drops nulls
      const offline = validator.refusal(sent(f));
      const undeclared = validator.errors(sent(f)).filter((e) => e.type === 'field not declared in schema');
      if (undeclared.length > 0) {
        // Its decoder words it: strict decoding error: unknown field "spec.x".
        for (const e of undeclared)
          if (!refusal.includes(`unknown field "${e.field}"`))
            differ.push(`${f.what}: ${e.field} in ${refusal}`);
      } else if (offline !== refusal) differ.push(`${f.what}:\n  offline ${offline}\n  server  ${refusal}`);
    }
    expect(differ).toEqual([]);
  });
});

/**
 * The kinds the plan validates and plans (BASES). A DeploymentWindowPolicy in the plan's input is not
 * planned (the plan reads the cluster's policies: docs/plan-and-import.md); its rules are checked at
 * admission (test/crds.test.ts, test/deployment-window-policies.test.ts).
 */
const PLANNED = CRDS.filter((crd) => kindOf(crd) in BASES);

describe('coverage of the CRDs', () => {
  const validator = offlineValidator();
  const fired = new Map<string, Fixture[]>();
  for (const f of FIXTURES)
    for (const e of validator.errors(f.obj as InputObject))
      if (e.source) fired.set(e.source, [...(fired.get(e.source) ?? []), f]);

  it.each(PLANNED.map((crd) => [kindOf(crd), crd] as const))(
    'every check of %s is broken by a fixture',
    (_, crd) => {
      const { checks, rules } = checksOf(schemaOf(crd));
      expect(checks.length + rules.length).toBeGreaterThan(0);
      expect([...checks, ...rules].map(sourceOf).filter((s) => !fired.has(s))).toEqual([]);
    },
  );

  it.each(PLANNED.map((crd) => [kindOf(crd), crd] as const))(
    '%s: the rules a create cannot break are the immutability rules (test/crds.test.ts updates objects for them)',
    (_, crd) => {
      const { transition } = checksOf(schemaOf(crd));
      expect(transition.length).toBeGreaterThan(0);
      for (const t of transition) expect(t.rule.message).toMatch(/ is immutable$/);
    },
  );

  it('the CRDs use no schema keyword the offline validation does not check (status aside: a create drops it)', () => {
    const unchecked = new Set<string>();
    for (const crd of CRDS)
      eachField(schemaOf(crd), (_, schema) => {
        for (const key of Object.keys(schema)) {
          if (!CHECKED_KEYWORDS.has(key) && key !== 'items' && key !== 'properties') unchecked.add(key);
        }
      });
    expect([...unchecked]).toEqual([]);
  });

  it('dropping any one CEL rule from the offline path makes the agreement fail', () => {
    const ruleSources = PLANNED.flatMap((crd) => checksOf(schemaOf(crd)).rules.map(sourceOf));
    expect(ruleSources.length).toBeGreaterThan(100);
    const unnoticed = ruleSources.filter(
      (source) =>
        disagreements(offlineValidator(undefined, new Set([source])), fired.get(source)).length === 0,
    );
    expect(unnoticed).toEqual([]);
  });
});
