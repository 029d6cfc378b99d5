/**
 * `kubectl agd import` keeps its guarantee (issue 27): deployments made directly on the simulator, as a CI
 * script makes them, are imported; the plan of the YAML is `none` for every object; applied with kubectl
 * and the controller running, every object becomes Ready and the control plane receives no write at all.
 * Once with secret values the platform reveals, once with values it masks (placeholders in the YAML).
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.ts';
import { ControlPlaneClient } from '../src/controlplane/client.ts';
import type { DeploymentCreateRequest } from '../src/controlplane/schemas.ts';
import { placeholderFor } from '../src/import/manifests.ts';
import type { InputObject, PlanKind, PlanWorld } from '../src/plan/model.ts';
import { planObjects } from '../src/plan/plan.ts';
import { publishOwnSettings } from '../src/runtime/publish-settings.ts';
import { DEFAULT_API_KEY, type RequestRecord } from '../src/simulator/index.ts';
import { eventually, type Harness, listEvents, sleep, startHarness, waitReady } from './support/harness.ts';
import { kubectl } from './support/kube.ts';
import { planWorld } from './support/plan-world.ts';

const DIGEST_KEY = 'import-test-secrets-digest-key';
const LISTENER = '3b6f0c1e-8a4d-4e6f-9b7a-1c2d3e4f5a6b';
const INTEGRATION = '7d8b6a3c-2f1e-4b5a-9c8d-0e1f2a3b4c5d';

let h: Harness;
let ci: ControlPlaneClient;
const clients: ControlPlaneClient[] = [];

beforeAll(async () => {
  h = await startHarness('import', { env: { SECRETS_DIGEST_KEY: DIGEST_KEY }, withOperator: false });
  // What the controller publishes when it starts (it starts after the plan here): the plan reads it.
  await publishOwnSettings(h.access, h.config);
  ci = new ControlPlaneClient({ credentials: { baseUrl: h.sim.url, apiKey: DEFAULT_API_KEY } });
});
afterAll(async () => {
  await Promise.all([ci, ...clients].map((c) => c?.close()));
  await h?.stop();
});

/** What a CI script sends: an image with sidecars, init containers, volumes, env from Secrets, labels. */
const imageDeployment = (name: string): DeploymentCreateRequest => ({
  name,
  source: 'external_image',
  source_config: {
    listener_id: LISTENER,
    custom_url: `https://${name}.agents.example.com`,
    resource_spec: {
      min_scale: 1,
      max_scale: 3,
      cpu: 1,
      memory_mb: 1024,
      labels: { team: 'research' },
      annotations: { 'example.com/owner': 'research' },
      image_pull_secrets: [{ name: 'registry' }],
      volumes: [
        { name: 'scratch', emptyDir: {} },
        { name: 'config', configMap: { name: 'research-config' } },
      ],
      volume_mounts: [{ name: 'scratch', mountPath: '/scratch' }],
      init_containers: [
        {
          name: 'migrate',
          image: 'registry.example.com/migrate:1',
          command: ['migrate', 'up'],
          envFrom: [{ secretRef: { name: 'db-credentials' } }],
          volumeMounts: [{ name: 'config', mountPath: '/config', readOnly: true }],
        },
      ],
      sidecars: [
        {
          name: 'log-shipper',
          image: 'fluent/fluent-bit:3.2',
          restartPolicy: 'Always',
          env: [
            { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'log-token', key: 'token' } } },
            { name: 'LEVEL', value: 'info' },
          ],
          resources: { limits: { cpu: '200m', memory: '128Mi' } },
          volumeMounts: [{ name: 'scratch', mountPath: '/var/log/agent', readOnly: true }],
        },
      ],
    },
  },
  source_revision_config: { image_uri: 'registry.example.com/research-agent:1.4.2' },
  secrets: [
    { name: 'OPENAI_API_KEY', value: `openai-value-of-${name}` },
    { name: 'DATABASE_URL', value: `postgres://db/${name}` },
  ],
});

/** A repository built on push, with an install command the platform does not echo back. */
const repoDeployment = (name: string): DeploymentCreateRequest => ({
  name,
  source: 'repo_host',
  source_config: {
    integration_id: INTEGRATION,
    repo_url: 'https://github.com/example-org/support-agent',
    deployment_type: 'dev',
    build_on_push: true,
    install_command: 'npm ci',
  },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
  secrets: [{ name: 'ANTHROPIC_API_KEY', value: `anthropic-value-of-${name}` }],
});

const plainDeployment = (name: string): DeploymentCreateRequest => ({
  name,
  source: 'external_image',
  source_config: {},
  source_revision_config: { image_uri: 'registry.example.com/plain:1' },
  secrets: [],
});

/** Creates the deployments and waits until each one's first revision is DEPLOYED, as CI scripts do. */
async function createAsCi(requests: DeploymentCreateRequest[]): Promise<void> {
  for (const request of requests) {
    const created = await ci.createDeployment(request);
    await eventually(async () => {
      const d = await ci.getDeployment(created.id);
      if (!d.latest_revision_id) return false;
      return (await ci.getRevision(d.id, d.latest_revision_id)).status === 'DEPLOYED' && d.status === 'READY';
    }, `${request.name} DEPLOYED`);
  }
}

async function runImport(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli({
    argv: ['import', ...args, '-n', h.ns],
    env: { CONTROL_PLANE_URL: h.sim.url, CONTROL_PLANE_API_KEY: DEFAULT_API_KEY },
    stdin: () => '',
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    isTty: false,
    // Each object is checked with the run's API server (a server-side dry run), as with a kubeconfig.
    kubeAccess: () => h.access,
  });
  return { code, stdout, stderr };
}

type Doc = InputObject & { stringData?: Record<string, string> };

const world = (): PlanWorld => planWorld(h, DIGEST_KEY, clients);

/** The plan of every imported object, with the imported Secrets as the input's. */
async function planOf(docs: Doc[]) {
  const agds = docs.filter((d) => d.kind === 'AgentDeployment') as (Doc & { kind: PlanKind })[];
  const secrets = docs
    .filter((d) => d.kind === 'Secret')
    .map((d) => ({
      namespace: d.metadata.namespace,
      name: d.metadata.name,
      data: Object.fromEntries(
        Object.entries(d.stringData ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
      ),
    }));
  return planObjects(agds, h.ns, world(), secrets);
}

const writes = (since: number): RequestRecord[] =>
  h.sim
    .requests()
    .slice(since)
    .filter((r) => r.method !== 'GET' && r.route.startsWith('/v2/deployments'));

/** Every imported object Ready, then a few polls (1 s each) for an unexpected call to show. */
async function allReady(names: string[]): Promise<void> {
  for (const name of names) await waitReady(h, name, 60_000);
  await sleep(3_000);
}

describe('import, apply, reconcile: nothing is sent', () => {
  it('secret values the platform reveals: written with a warning; plan none; no write', {
    timeout: 180_000,
  }, async () => {
    h.sim.setPresentation({ revealSecrets: true });
    await createAsCi([
      imageDeployment('ci-rev-research'),
      repoDeployment('ci-rev-support'),
      plainDeployment('ci-rev-plain'),
    ]);

    const { code, stdout, stderr } = await runImport(['--name-contains', 'CI-REV-']);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/warning: the output holds secret values/);
    expect(stderr).toMatch(/ci-rev-support.*does not return source_config\.install_command/);
    const docs = yaml.loadAll(stdout) as Doc[];
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'AgentDeployment/ci-rev-plain',
      'Secret/ci-rev-research-secrets',
      'AgentDeployment/ci-rev-research',
      'Secret/ci-rev-support-secrets',
      'AgentDeployment/ci-rev-support',
    ]);
    // The platform's defaults are left out: limits at twice, queue values, an env var's empty value.
    const research = docs.find((d) => d.metadata.name === 'ci-rev-research') as Doc;
    const rs = (research.spec as { sourceConfig: { resourceSpec: Record<string, unknown> } }).sourceConfig
      .resourceSpec;
    expect(Object.keys(rs).sort()).toEqual(
      [
        'annotations',
        'cpu',
        'imagePullSecrets',
        'initContainers',
        'labels',
        'maxScale',
        'memoryMb',
        'minScale',
        'sidecars',
        'volumeMounts',
        'volumes',
      ].sort(),
    );
    expect(stdout).toContain('openai-value-of-ci-rev-research');

    const plan = await planOf(docs);
    expect(plan.map((e) => `${e.name}: ${e.action}`)).toEqual([
      'ci-rev-plain: none',
      'ci-rev-research: none',
      'ci-rev-support: none',
    ]);

    const since = h.sim.requests().length;
    const applied = await kubectl(['apply', '--server-side', '-f', '-'], { input: stdout });
    expect(applied.code, applied.stderr).toBe(0);
    await h.startOperator();
    await allReady(['ci-rev-plain', 'ci-rev-research', 'ci-rev-support']);
    expect(writes(since)).toEqual([]);
  });

  it('secret values the platform masks: placeholders, plan none, adoption takes them as current, no write', {
    timeout: 180_000,
  }, async () => {
    h.sim.setPresentation({ revealSecrets: false });
    await createAsCi([imageDeployment('ci-masked-research'), repoDeployment('ci-masked-support')]);
    const ids = h.sim
      .deployments()
      .filter((d) => d.name.startsWith('ci-masked-'))
      .map((d) => d.id);

    const dir = mkdtempSync(join(tmpdir(), 'agd-import-'));
    const { code, stderr } = await runImport([...ids.flatMap((id) => ['--id', id]), '--output-dir', dir]);
    expect(code, stderr).toBe(0);
    expect(stderr).not.toMatch(/secret values/);
    expect(readdirSync(dir).sort()).toEqual(['ci-masked-research.yaml', 'ci-masked-support.yaml']);
    const applied = await kubectl(['apply', '--server-side', '-f', dir]);
    expect(applied.code, applied.stderr).toBe(0);
    const shown = await kubectl(
      ['get', 'secret', 'ci-masked-research-secrets', '-o', 'jsonpath={.data.OPENAI_API_KEY}'],
      {
        namespace: h.ns,
      },
    );
    expect(Buffer.from(shown.stdout, 'base64').toString()).toBe(placeholderFor('OPENAI_API_KEY'));

    const since = h.sim.requests().length;
    await allReady(['ci-masked-research', 'ci-masked-support']);
    expect(writes(since)).toEqual([]);
    const events = await listEvents(h, 'ci-masked-research');
    expect(events.map((e) => e.reason)).toContain('SecretsTakenAsCurrent');
    // Still nothing for the objects of the revealed import, now that values are masked.
    for (const name of ['ci-rev-research', 'ci-rev-support']) await waitReady(h, name);
  });

  it('a deployment the operator cannot express: named on standard error, no file written at all', {
    timeout: 60_000,
  }, async () => {
    const odd = imageDeployment('ci-odd-misspelt');
    const sidecar = odd.source_config.resource_spec?.sidecars?.[0] as Record<string, unknown>;
    // Free-form to the platform, a typed core/v1 SecurityContext to the CRD: the misspelt field has no place.
    sidecar.securityContext = { runAsNonroot: true };
    await createAsCi([odd, plainDeployment('ci-odd-fine')]);
    const dir = mkdtempSync(join(tmpdir(), 'agd-import-'));
    const { code, stderr } = await runImport(['--name-contains', 'ci-odd-', '--output-dir', dir]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /\(ci-odd-misspelt\): not written, the operator cannot express it exactly: spec\.sourceConfig\.resourceSpec\.sidecars\[0\]\.securityContext\.runAsNonroot has no place/,
    );
    expect(stderr).toMatch(/nothing written to/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the API server refuses an object (its transition rules): named, not written', {
    timeout: 60_000,
  }, async () => {
    // An object of that name exists already (observe-only: it sends nothing), of another source, which
    // is immutable.
    const clashing = {
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'AgentDeployment',
      metadata: { name: 'ci-dry-clash', namespace: h.ns },
      spec: {
        source: 'external_image',
        managementPolicies: ['Observe'],
        sourceRevisionConfig: { imageUri: 'registry.example.com/plain:1' },
      },
    };
    const applied = await kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(clashing) });
    expect(applied.code, applied.stderr).toBe(0);
    await createAsCi([repoDeployment('ci-dry-clash')]);
    const { code, stdout, stderr } = await runImport(['--name-contains', 'ci-dry-clash']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /\(ci-dry-clash\): not written.*the API server refuses it: .*spec\.source is immutable/,
    );
    expect(stderr).toMatch(/an AgentDeployment .*\/ci-dry-clash exists already/);
  });

  it('bad input: a filter that matches nothing, credentials that cannot list: exit 1, nothing written', async () => {
    const none = await runImport(['--name-contains', 'no-such-deployment']);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/no deployment whose name contains "no-such-deployment"/);

    let stderr = '';
    const code = await runCli({
      argv: ['import', '--all'],
      env: { CONTROL_PLANE_URL: h.sim.url, CONTROL_PLANE_API_KEY: 'wrong-key' },
      stdin: () => '',
      stdout: () => undefined,
      stderr: (t) => (stderr += t),
      isTty: false,
      kubeAccess: () => h.access,
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot list deployments/);
    expect(stderr).not.toContain('wrong-key');
  });

  it('a hostile deployment name: the output, applied with kubectl, creates no extra object', {
    timeout: 120_000,
  }, async () => {
    // A namespace user's deployment whose name smuggles a second document: a ClusterRoleBinding that
    // would make every authenticated user cluster-admin, applied with the administrator's credentials.
    const binding =
      '{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRoleBinding, metadata: {name: agd-pwned}, ' +
      'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}, ' +
      'subjects: [{kind: Group, name: system:authenticated}]}';
    const hostileName = `x\n---\n${binding}\n---\n#`;
    expect(hostileName.length).toBeLessThanOrEqual(253);
    await createAsCi([plainDeployment(hostileName), plainDeployment('ci-hostile-fine')]);
    const ids = h.sim
      .deployments()
      .filter((d) => d.name === hostileName || d.name === 'ci-hostile-fine')
      .map((d) => d.id);
    const agdsBefore = await kubectl(['get', 'agentdeployments', '-o', 'name'], { namespace: h.ns });

    const { code, stdout, stderr } = await runImport(ids.flatMap((id) => ['--id', id]));
    expect(code).toBe(1);
    expect(stderr).toMatch(/not written.*spec\.name: must have no control/);
    expect(
      stderr
        .trimEnd()
        .split('\n')
        .every((line) => line.startsWith('kubectl-agd import: ')),
    ).toBe(true);
    const applied = await kubectl(['apply', '--server-side', '-f', '-'], { input: stdout });
    expect(applied.code, applied.stderr).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'agd-import-'));
    await runImport([...ids.flatMap((id) => ['--id', id]), '--output-dir', dir]);
    for (const file of readdirSync(dir)) await kubectl(['apply', '--server-side', '-f', join(dir, file)]);

    const pwned = await kubectl(['get', 'clusterrolebinding', 'agd-pwned', '-o', 'name']);
    expect(pwned.stdout).toBe('');
    expect(pwned.stderr).toMatch(/NotFound/);
    const agdsAfter = await kubectl(['get', 'agentdeployments', '-o', 'name'], { namespace: h.ns });
    const added = agdsAfter.stdout
      .split('\n')
      .filter((line) => line && !agdsBefore.stdout.split('\n').includes(line));
    expect(added).toEqual(['agentdeployment.deploy.agents.dev/ci-hostile-fine']);
  });
});
