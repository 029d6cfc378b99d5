/**
 * The Argo CD health fixtures (argocd/resource_customizations/<group>/<kind>/testdata/) are captured, not
 * written: each case drives a real object into one state (the controller in-process against the run's API
 * server and the simulator), reads it back, and normalises what differs between runs (uids, ids,
 * timestamps, the namespace). The test fails when a fixture on disk differs from its capture, so a
 * fixture can only state what the controller really produces; `UPDATE_ARGOCD_FIXTURES=1` rewrites them
 * and health_test.yaml. Each case states the health Argo CD must show (test/argocd-health.test.ts runs the
 * Lua over the fixtures in gopher-lua).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, SANDBOX_TEMPLATE, VERSION } from '../src/api/group.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { defaultListeners, EXAMPLE_TEMPLATES } from '../src/simulator/index.ts';
import { REPO } from './packaging-helpers.ts';
import {
  AGD_PATH,
  createAgd,
  eventually,
  getAgd,
  type Harness,
  mergePatchAgd,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { createTestNamespace } from './support/kube.ts';

const HEALTH_DIR = join(REPO, 'argocd/resource_customizations/deploy.agents.dev');
const UPDATE = process.env.UPDATE_ARGOCD_FIXTURES === '1';
const LISTENER = defaultListeners()[0]?.id as string;
const TEMPLATE = EXAMPLE_TEMPLATES[0]?.name as string;
const SBT_PATH = (ns: string) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${SANDBOX_TEMPLATE.plural}`;

type Obj = {
  metadata: { name: string; generation?: number; annotations?: Record<string, string> };
  status?: { conditions?: { type: string; message?: string }[]; revisionStatus?: string };
  [k: string]: unknown;
};
type Health = 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended';
interface Case {
  kind: 'AgentDeployment' | 'SandboxTemplate';
  file: string;
  health: Health;
  /** The message Argo CD must show, from the captured object (a condition's message, as a rule). */
  message: (obj: Obj) => string;
  produce: () => Promise<Obj>;
}

let h: Harness;
/** A namespace no controller watches: objects there keep the state the API server gave them. */
let unwatched: string;

beforeAll(async () => {
  h = await startHarness('argocd-fixtures', { simulator: { templates: EXAMPLE_TEMPLATES } });
  unwatched = await createTestNamespace('argocd-fixtures-unwatched');
});

afterAll(async () => {
  await h?.stop();
});

const conditionMessage = (type: string) => (obj: Obj) =>
  obj.status?.conditions?.find((c) => c.type === type)?.message ?? '';

const externalImage = (name: string, extra: { annotations?: Record<string, string> } = {}) => ({
  metadata: { name, ...extra },
  spec: {
    source: 'external_image',
    sourceConfig: { listenerId: LISTENER, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
    sourceRevisionConfig: { imageUri: 'registry.example.com/support-agent:1' },
  },
});

const repoHost = (name: string) => ({
  metadata: { name },
  spec: {
    source: 'repo_host',
    sourceConfig: {
      integrationId: '6f1f7a4e-8d7b-4c43-9a57-2f6a9b1c0d11',
      repoUrl: 'https://git.example.com/team-a/support-agent',
      deploymentType: 'dev',
    },
    sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
  },
});

async function until(name: string, what: string, check: (obj: Obj) => boolean): Promise<Obj> {
  return eventually(async () => {
    const obj = (await getAgd(h, name)) as unknown as Obj;
    return check(obj) ? obj : undefined;
  }, `${name}: ${what}`);
}
const cond = (obj: Obj, type: string) =>
  obj.status?.conditions?.find((c) => c.type === type) as { status?: string; reason?: string } | undefined;
const hasCondition = (type: string, status: string, reason?: string) => (obj: Obj) => {
  const c = cond(obj, type);
  return c?.status === status && (reason === undefined || c.reason === reason);
};

/** A revision under analysis (spec.analysis, its agent server measured) until `type` says `reason`. */
async function analysed(name: string, conditions: Record<string, string>, type: string, reason: string) {
  const obj = repoHost(name);
  const metric = { name: 'success', agentServer: { assistantId: 'agent', runs: 1 }, ...conditions };
  await createAgd(h, {
    ...obj,
    spec: { ...obj.spec, analysis: { count: 2, interval: '1h', metrics: [metric] } },
  });
  return until(name, `${type} ${reason}`, hasCondition(type, 'True', reason));
}

async function createSbt(ns: string, name: string, spec: Record<string, unknown>, annotations?: object) {
  return (await kubeRequest(h.access, {
    method: 'POST',
    path: SBT_PATH(ns),
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: SANDBOX_TEMPLATE.kind,
      metadata: { name, ...(annotations ? { annotations } : {}) },
      spec,
    },
  })) as Obj;
}
async function untilSbt(name: string, what: string, check: (obj: Obj) => boolean): Promise<Obj> {
  return eventually(async () => {
    const obj = (await kubeRequest(h.access, { method: 'GET', path: `${SBT_PATH(h.ns)}/${name}` })) as Obj;
    return check(obj) ? obj : undefined;
  }, `${name}: ${what}`);
}

const PAUSED = { 'deploy.agents.dev/paused': 'true' };

const CASES: Case[] = [
  {
    kind: 'AgentDeployment',
    file: 'progressing_not_observed',
    health: 'Progressing',
    message: () => 'Waiting for the controller to observe generation 1',
    produce: async () =>
      (await kubeRequest(h.access, {
        method: 'POST',
        path: AGD_PATH(unwatched),
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'AgentDeployment',
          ...externalImage('support-agent'),
        },
      })) as Obj,
  },
  {
    kind: 'AgentDeployment',
    file: 'healthy',
    health: 'Healthy',
    message: conditionMessage('Ready'),
    produce: async () => {
      await createAgd(h, externalImage('healthy'));
      return (await waitReady(h, 'healthy')) as unknown as Obj;
    },
  },
  {
    kind: 'AgentDeployment',
    file: 'progressing_revision_queued',
    health: 'Progressing',
    message: (obj) =>
      conditionMessage('Reconciling')(obj) || `Latest revision is ${obj.status?.revisionStatus}`,
    produce: async () => {
      h.sim.scriptRevisions({ deploymentName: 'queued', hold: 'QUEUED' });
      await createAgd(h, externalImage('queued'));
      return until('queued', 'revision QUEUED', (o) => o.status?.revisionStatus === 'QUEUED');
    },
  },
  {
    kind: 'AgentDeployment',
    file: 'progressing_building',
    health: 'Progressing',
    message: (obj) =>
      conditionMessage('Reconciling')(obj) || `Latest revision is ${obj.status?.revisionStatus}`,
    produce: async () => {
      h.sim.scriptRevisions({ deploymentName: 'building', hold: 'BUILDING' });
      await createAgd(h, repoHost('building'));
      return until('building', 'revision BUILDING', (o) => o.status?.revisionStatus === 'BUILDING');
    },
  },
  {
    kind: 'AgentDeployment',
    file: 'progressing_transient_error',
    health: 'Progressing',
    message: conditionMessage('Reconciling'),
    produce: async () => {
      const remove = h.sim.addFault({ method: 'POST', route: '/v2/deployments', status: 503 });
      try {
        await createAgd(h, externalImage('unavailable'));
        return await until(
          'unavailable',
          'Reconciling ControlPlaneUnavailable',
          hasCondition('Reconciling', 'True', 'ControlPlaneUnavailable'),
        );
      } finally {
        remove();
      }
    },
  },
  {
    kind: 'AgentDeployment',
    file: 'degraded_stalled',
    health: 'Degraded',
    message: conditionMessage('Stalled'),
    produce: async () => {
      const remove = h.sim.addFault({ method: 'POST', route: '/v2/deployments', status: 422 });
      try {
        await createAgd(h, externalImage('rejected'));
        return await until('rejected', 'Stalled Rejected', hasCondition('Stalled', 'True', 'Rejected'));
      } finally {
        remove();
      }
    },
  },
  {
    kind: 'AgentDeployment',
    file: 'degraded_rolled_back',
    health: 'Degraded',
    message: conditionMessage('Stalled'),
    produce: async () => {
      const at = (repoRef: string) => ({
        sourceRevisionConfig: { repoRef, graphConfigPath: 'langgraph.json' },
      });
      h.sim.configureRevisionAgent('refs/tags/broken', { graph: { fail: true, errorMessage: 'broken' } });
      const obj = repoHost('rolled-back');
      await createAgd(h, {
        ...obj,
        spec: {
          ...obj.spec,
          ...at('refs/tags/v1'),
          verification: { assistantId: 'agent', webhook: false },
          remediation: { strategy: 'Rollback' },
        },
      });
      await waitReady(h, 'rolled-back');
      await mergePatchAgd(h, 'rolled-back', { spec: at('refs/tags/broken') });
      return until('rolled-back', 'Stalled RolledBack', hasCondition('Stalled', 'True', 'RolledBack'));
    },
  },
  {
    kind: 'AgentDeployment',
    file: 'degraded_build_failed',
    health: 'Degraded',
    message: conditionMessage('Ready'),
    produce: async () => {
      h.sim.failRevisions({ deploymentName: 'build-failed', at: 'BUILD' });
      await createAgd(h, repoHost('build-failed'));
      return until(
        'build-failed',
        'revision BUILD_FAILED',
        (o) => o.status?.revisionStatus === 'BUILD_FAILED',
      );
    },
  },
  {
    kind: 'AgentDeployment',
    file: 'degraded_deploy_failed',
    health: 'Degraded',
    message: conditionMessage('Ready'),
    produce: async () => {
      h.sim.failRevisions({ deploymentName: 'deploy-failed', at: 'DEPLOY' });
      await createAgd(h, externalImage('deploy-failed'));
      return until(
        'deploy-failed',
        'revision DEPLOY_FAILED',
        (o) => o.status?.revisionStatus === 'DEPLOY_FAILED',
      );
    },
  },
  {
    kind: 'AgentDeployment',
    file: 'progressing_retry_backoff',
    health: 'Progressing',
    message: conditionMessage('Reconciling'),
    produce: async () => {
      h.sim.failRevisions({ deploymentName: 'retrying', at: 'DEPLOY' });
      const obj = externalImage('retrying');
      await createAgd(h, { ...obj, spec: { ...obj.spec, retry: { limit: 3, backoff: '1h' } } });
      return until(
        'retrying',
        'DEPLOY_FAILED, retry scheduled',
        (o) => o.status?.revisionStatus === 'DEPLOY_FAILED' && hasCondition('Reconciling', 'True')(o),
      );
    },
  },
  {
    kind: 'AgentDeployment',
    file: 'progressing_window_closed',
    health: 'Progressing',
    message: conditionMessage('Reconciling'),
    produce: async () => {
      // A Deny window open all year, every year: the message names no time that moves between runs.
      const obj = externalImage('windowed');
      const window = { kind: 'Deny', schedule: '0 0 1 1 *', duration: '8784h' };
      await createAgd(h, { ...obj, spec: { ...obj.spec, deploymentWindows: [window] } });
      return until(
        'windowed',
        'Reconciling WindowClosed',
        hasCondition('Reconciling', 'True', 'WindowClosed'),
      );
    },
  },
  {
    kind: 'AgentDeployment',
    file: 'progressing_analysis_running',
    health: 'Progressing',
    message: conditionMessage('Reconciling'),
    produce: () =>
      analysed('analysis-running', { successCondition: 'true' }, 'Reconciling', 'AnalysisRunning'),
  },
  {
    kind: 'AgentDeployment',
    file: 'suspended_analysis_inconclusive',
    health: 'Suspended',
    message: conditionMessage('Paused'),
    produce: () =>
      analysed(
        'analysis-paused',
        { successCondition: 'result.successRate > 2.0', failureCondition: 'result.successRate < 0.0' },
        'Paused',
        'AnalysisInconclusive',
      ),
  },
  {
    kind: 'AgentDeployment',
    file: 'degraded_analysis_failed',
    health: 'Degraded',
    message: conditionMessage('Stalled'),
    produce: () =>
      analysed(
        'analysis-failed',
        { successCondition: 'result.successRate > 2.0' },
        'Stalled',
        'AnalysisFailed',
      ),
  },
  {
    kind: 'AgentDeployment',
    file: 'suspended',
    health: 'Suspended',
    message: conditionMessage('Paused'),
    produce: async () => {
      await createAgd(h, externalImage('paused'));
      await waitReady(h, 'paused');
      await mergePatchAgd(h, 'paused', { metadata: { annotations: PAUSED } });
      return until('paused', 'Paused', hasCondition('Paused', 'True'));
    },
  },
  {
    kind: 'AgentDeployment',
    file: 'suspended_annotation_only',
    health: 'Suspended',
    message: () => 'Reconciliation is paused by the deploy.agents.dev/paused annotation',
    produce: async () =>
      (await kubeRequest(h.access, {
        method: 'POST',
        path: AGD_PATH(unwatched),
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'AgentDeployment',
          ...externalImage('paused-before-observed', { annotations: PAUSED }),
        },
      })) as Obj,
  },
  {
    kind: 'SandboxTemplate',
    file: 'progressing_not_observed',
    health: 'Progressing',
    message: () => 'Waiting for the controller to observe generation 1',
    produce: () => createSbt(unwatched, 'python-sandbox', { templateName: TEMPLATE }),
  },
  {
    kind: 'SandboxTemplate',
    file: 'healthy',
    health: 'Healthy',
    message: conditionMessage('Ready'),
    produce: async () => {
      await createSbt(h.ns, 'in-sync', { templateName: TEMPLATE });
      return untilSbt('in-sync', 'Ready', hasCondition('Ready', 'True'));
    },
  },
  {
    kind: 'SandboxTemplate',
    file: 'degraded_drifted',
    health: 'Degraded',
    message: conditionMessage('Stalled'),
    produce: async () => {
      await createSbt(h.ns, 'drifted', {
        templateName: TEMPLATE,
        image: 'docker.io/library/python:3.11-slim',
      });
      return untilSbt('drifted', 'Drifted', hasCondition('Drifted', 'True'));
    },
  },
  {
    kind: 'SandboxTemplate',
    file: 'progressing_not_found',
    health: 'Progressing',
    message: conditionMessage('Reconciling'),
    produce: async () => {
      await createSbt(h.ns, 'missing', { templateName: 'no-such-template' });
      return untilSbt('missing', 'Ready False NotFound', hasCondition('Ready', 'False', 'NotFound'));
    },
  },
  {
    kind: 'SandboxTemplate',
    file: 'suspended',
    health: 'Suspended',
    message: conditionMessage('Paused'),
    produce: async () => {
      await createSbt(h.ns, 'paused', { templateName: TEMPLATE }, PAUSED);
      return untilSbt('paused', 'Paused', hasCondition('Paused', 'True'));
    },
  },
  // Last: these stop the controller, so that the spec moves on while status stays at the old generation.
  {
    kind: 'AgentDeployment',
    file: 'progressing_stale_generation',
    health: 'Progressing',
    message: (obj) => `Waiting for the controller to observe generation ${obj.metadata.generation}`,
    produce: async () => {
      await h.operator.stop(1_000);
      return (await mergePatchAgd(h, 'healthy', {
        spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/support-agent:2' } },
      })) as unknown as Obj;
    },
  },
  {
    kind: 'SandboxTemplate',
    file: 'progressing_stale_generation',
    health: 'Progressing',
    message: (obj) => `Waiting for the controller to observe generation ${obj.metadata.generation}`,
    produce: async () =>
      (await kubeRequest(h.access, {
        method: 'PATCH',
        path: `${SBT_PATH(h.ns)}/in-sync`,
        body: { spec: { image: 'docker.io/library/python:3.13-slim' } },
        contentType: 'application/merge-patch+json',
      })) as Obj,
  },
];

/**
 * The object as a fixture: what differs from run to run replaced by fixed values (uids and ids in order
 * of appearance, timestamps, the namespace, digests, the simulator's address), and what Argo CD never
 * reads (managedFields) left out.
 */
function normalise(obj: Obj, namespace: string): string {
  const { metadata, ...rest } = obj as Obj & { metadata: Record<string, unknown> };
  const { uid, resourceVersion, creationTimestamp, managedFields, ...keptMetadata } = metadata;
  let text = yaml.dump({ ...rest, metadata: keptMetadata }, { lineWidth: -1, noRefs: true, sortKeys: true });
  text = text.replaceAll(namespace, 'team-a');
  const ids = new Map<string, string>();
  text = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
    if (!ids.has(id)) ids.set(id, `00000000-0000-4000-8000-${String(ids.size + 1).padStart(12, '0')}`);
    return ids.get(id) as string;
  });
  text = text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '2026-01-01T00:00:00Z');
  // Keyed by the run's operator key, and the simulator's port.
  text = text.replace(/hmac-sha256:[0-9a-f]+/g, `hmac-sha256:${'0'.repeat(32)}`);
  // The tenant digest hashes the simulator's URL, whose port differs per run.
  text = text.replace(/credentialsDigest: sha256:[0-9a-f]+/g, `credentialsDigest: sha256:${'0'.repeat(32)}`);
  text = text.replace(/http:\/\/127\.0\.0\.1:\d+/g, 'https://platform.example.com');
  // How long a smoke run took differs from run to run.
  text = text.replace(/ in \d+(\.\d+)?s\b/g, ' in 0.1s').replace(/duration: \S+/g, 'duration: 0.1s');
  // So do an analysis' run latencies.
  text = text.replace(/"p(50|95)Ms":\d+(\.\d+)?/g, '"p$1Ms":100');
  return `# Captured by test/argocd-fixtures.test.ts from the object the controller produced. DO NOT EDIT:\n# rerun it with UPDATE_ARGOCD_FIXTURES=1.\n${text}`;
}

const captured = new Map<Case, string>();

describe.sequential('Argo CD health fixtures captured from real objects', () => {
  it.each(CASES.map((c) => [`${c.kind}/${c.file}`, c] as const))('%s', async (_name, c) => {
    const obj = await c.produce();
    const namespace =
      c.file.endsWith('not_observed') || c.file.endsWith('annotation_only') ? unwatched : h.ns;
    const text = normalise(obj, namespace);
    captured.set(c, text);
    const path = join(HEALTH_DIR, c.kind, 'testdata', `${c.file}.yaml`);
    if (UPDATE) writeFileSync(path, text);
    expect(readFileSync(path, 'utf8'), `${path} (UPDATE_ARGOCD_FIXTURES=1 rewrites it)`).toBe(text);
  });

  it.each(['AgentDeployment', 'SandboxTemplate'] as const)(
    '%s: health_test.yaml lists exactly the captured fixtures with the health each must show',
    (kind) => {
      const cases = CASES.filter((c) => c.kind === kind);
      const tests = cases.map((c) => {
        const obj = yaml.load(captured.get(c) ?? '') as Obj;
        return {
          healthStatus: { status: c.health, message: c.message(obj) },
          inputPath: `testdata/${c.file}.yaml`,
        };
      });
      const text =
        "# Argo CD's format for health check tests; generated by test/argocd-fixtures.test.ts with the fixtures.\n" +
        '# test/argocd-health.test.ts runs every case with a Lua 5.1 interpreter.\n' +
        yaml.dump({ tests }, { lineWidth: -1, quotingType: '"', forceQuotes: false });
      const path = join(HEALTH_DIR, kind, 'health_test.yaml');
      if (UPDATE) writeFileSync(path, text);
      expect(readFileSync(path, 'utf8')).toBe(text);
      const onDisk = readdirSync(join(HEALTH_DIR, kind, 'testdata')).sort();
      expect(onDisk).toEqual(cases.map((c) => `${c.file}.yaml`).sort());
    },
  );
});
