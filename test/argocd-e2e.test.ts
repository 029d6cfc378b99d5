/**
 * A real Argo CD (application controller and repo server, built from the Go module proxy) against the
 * run's API server, the controller in-process and the simulator, syncing from a git repository in a
 * local directory: examples/ reach Synced and stay Synced across refreshes, health follows the Lua
 * (Progressing, then Healthy; Degraded on a failed build), deleting an Application as docs/install.md says
 * leaves the platform's deployments, and the chart installed through an Application (as
 * docs/argocd-application.yaml does) shows no diff across refreshes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXAMPLE_TEMPLATES, EXAMPLES_DIR_TEMPLATE } from '../src/simulator/index.ts';
import { REPO } from './packaging-helpers.ts';
import { ARGOCD_NAMESPACE, type ArgoCd, argocdBinDir, localGitRepo, startArgoCd } from './support/argocd.ts';
import { eventually, getAgd, type Harness, startHarness } from './support/harness.ts';
import { createTestNamespace, kubectl } from './support/kube.ts';

const BUILD_TIMEOUT_MS = 60 * 60_000;

interface Application {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: Record<string, unknown> & { source: Record<string, unknown>; destination: Record<string, unknown> };
  status?: {
    sync?: { status?: string };
    health?: { status?: string };
    reconciledAt?: string;
    resources?: {
      kind: string;
      name: string;
      namespace?: string;
      status?: string;
      health?: { status?: string; message?: string };
    }[];
    conditions?: { type: string; message: string }[];
    operationState?: {
      phase?: string;
      message?: string;
      syncResult?: { resources?: { kind: string; name: string; status?: string; message?: string }[] };
    };
  };
}

let h: Harness;
let argocd: ArgoCd | undefined;
let repo: ReturnType<typeof localGitRepo>;

/** Every file under `dir` of this repository, by repository-relative path. */
function filesUnder(dir: string, edit: (text: string) => string = (t) => t): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (abs: string) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const path = join(abs, entry.name);
      if (entry.isDirectory()) walk(path);
      else out[relative(REPO, path)] = edit(readFileSync(path, 'utf8'));
    }
  };
  walk(join(REPO, dir));
  return out;
}

const apply = async (obj: unknown) => {
  const result = await kubectl(['apply', '-f', '-'], { input: JSON.stringify(obj) });
  if (result.code !== 0) throw new Error(result.stderr);
};

async function getApp(name: string): Promise<Application> {
  const result = await kubectl(['get', 'application', name, '-o', 'json'], { namespace: ARGOCD_NAMESPACE });
  if (result.code !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as Application;
}

async function untilApp(
  name: string,
  what: string,
  check: (app: Application) => boolean,
  timeoutMs = 120_000,
) {
  try {
    return await eventually(
      async () => {
        const app = await getApp(name);
        return check(app) ? app : undefined;
      },
      `Application ${name}: ${what}`,
      timeoutMs,
    );
  } catch (err) {
    const app = await getApp(name).catch(() => undefined);
    throw new Error(
      `${(err as Error).message}\nstatus: ${JSON.stringify(app?.status, null, 1)}\nlogs:\n${argocd?.logs.slice(-40).join('\n')}`,
    );
  }
}

/** A hard refresh (manifests generated again, live state compared again), waited for. */
async function refresh(name: string): Promise<Application> {
  const before = (await getApp(name)).status?.reconciledAt;
  const result = await kubectl(
    ['annotate', 'application', name, 'argocd.argoproj.io/refresh=hard', '--overwrite'],
    { namespace: ARGOCD_NAMESPACE },
  );
  expect(result.code, result.stderr).toBe(0);
  return untilApp(
    name,
    'refreshed',
    (app) =>
      app.metadata.annotations?.['argocd.argoproj.io/refresh'] === undefined &&
      app.status?.reconciledAt !== before,
  );
}

const resourceHealth = (app: Application, kind: string, name: string) =>
  app.status?.resources?.find((r) => r.kind === kind && r.name === name)?.health;

beforeAll(async () => {
  const binDir = argocdBinDir();
  h = await startHarness('argocd-e2e', {
    simulator: { templates: [...EXAMPLE_TEMPLATES, EXAMPLES_DIR_TEMPLATE] },
  });
  // examples/ as a team would keep them, moved into this test's namespace.
  const examples = filesUnder('examples', (text) =>
    text.replaceAll('namespace: default', `namespace: ${h.ns}`),
  );
  const failing = {
    'failing/agentdeployment.yaml': yaml.dump({
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'AgentDeployment',
      metadata: { name: 'failing-build', namespace: h.ns },
      spec: {
        source: 'repo_host',
        sourceConfig: {
          integrationId: '6f1f7a4e-8d7b-4c43-9a57-2f6a9b1c0d11',
          repoUrl: 'https://git.example.com/team-a/failing',
          deploymentType: 'dev',
        },
        sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
      },
    }),
  };
  repo = localGitRepo({ ...examples, ...failing, ...filesUnder('helm/agent-deployment-operator') });
  argocd = await startArgoCd(binDir, inject('kubeBinDir'));
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await argocd?.stop();
  await h?.stop();
});

const teamApp = (name: string, path: string): Application => {
  // The team Application of docs/argocd-application.yaml, pointed at the local repository.
  const docs = yaml.loadAll(
    readFileSync(join(REPO, 'docs/argocd-application.yaml'), 'utf8'),
  ) as Application[];
  const template = docs.find((a) => a.metadata.name === 'team-a-agents') as Application;
  return {
    ...template,
    metadata: { name, namespace: ARGOCD_NAMESPACE } as Application['metadata'],
    spec: {
      ...template.spec,
      source: { repoURL: repo.url, targetRevision: 'main', path },
      destination: { ...template.spec.destination, namespace: h.ns },
    },
  };
};

describe('Argo CD syncing AgentDeployments from git', () => {
  it('syncs examples/ to Synced, health Progressing then Healthy, and stays Synced across refreshes', {
    timeout: 600_000,
  }, async () => {
    // The repo_host example builds until the test lets it finish: Argo CD must show Progressing meanwhile.
    h.sim.scriptRevisions({ deploymentName: 'support-agent', hold: 'BUILDING' });
    await apply(teamApp('examples', 'examples'));
    let app = await untilApp('examples', 'Synced', (a) => a.status?.sync?.status === 'Synced');
    app = await untilApp(
      'examples',
      'support-agent Progressing',
      (a) => resourceHealth(a, 'AgentDeployment', 'support-agent')?.status === 'Progressing',
    );
    expect(app.status?.health?.status).toBe('Progressing');

    const deployment = h.sim.deployments().find((d) => d.name === 'support-agent');
    expect(deployment).toBeDefined();
    const revision = h.sim.revisions(deployment?.id as string).at(-1);
    expect(h.sim.setRevisionStatus(deployment?.id as string, revision?.id as string, 'DEPLOYED')).toBe(true);
    app = await untilApp('examples', 'Healthy', (a) => a.status?.health?.status === 'Healthy');
    expect(
      app.status?.resources?.filter((r) => r.kind === 'AgentDeployment').map((r) => r.health?.status),
    ).toEqual(['Healthy', 'Healthy']);

    for (let i = 0; i < 2; i += 1) {
      app = await refresh('examples');
      expect(app.status?.sync?.status, JSON.stringify(app.status?.resources)).toBe('Synced');
      expect(app.status?.resources?.filter((r) => r.status !== 'Synced')).toEqual([]);
    }
  });

  it('shows Degraded, with the condition message, when a build fails', { timeout: 300_000 }, async () => {
    h.sim.failRevisions({ deploymentName: 'failing-build', at: 'BUILD' });
    await apply(teamApp('failing', 'failing'));
    const app = await untilApp('failing', 'Degraded', (a) => a.status?.health?.status === 'Degraded');
    const health = resourceHealth(app, 'AgentDeployment', 'failing-build');
    expect(health?.status).toBe('Degraded');
    expect(health?.message).toContain('BUILD_FAILED');
  });

  it('leaves the AgentDeployments and their deployments when the Application is deleted as documented', async () => {
    const before = h.sim
      .deployments()
      .map((d) => d.name)
      .sort();
    expect(before).toContain('support-agent');
    const deleted = await kubectl(['delete', 'application', 'examples', '--wait=true'], {
      namespace: ARGOCD_NAMESPACE,
    });
    expect(deleted.code, deleted.stderr).toBe(0);
    // The controller keeps reconciling; nothing deletes the objects or the deployments.
    const obj = await getAgd(h, 'support-agent');
    expect(obj.metadata.deletionTimestamp).toBeUndefined();
    expect(
      h.sim
        .deployments()
        .map((d) => d.name)
        .sort(),
    ).toEqual(before);
  });
});

const CRDS = [
  'crd/agentdeployments.deploy.agents.dev',
  'crd/deploymentwindowpolicies.deploy.agents.dev',
  'crd/sandboxtemplates.deploy.agents.dev',
];

describe('the chart through an Argo CD Application', () => {
  it('syncs with docs/argocd-application.yaml and shows no diff across two refreshes', {
    timeout: 600_000,
  }, async () => {
    const ns = await createTestNamespace('argocd-chart');
    const docs = yaml.loadAll(
      readFileSync(join(REPO, 'docs/argocd-application.yaml'), 'utf8'),
    ) as Application[];
    const template = docs.find((a) => a.spec.source.path === 'helm/agent-deployment-operator') as Application;
    const app: Application = {
      ...template,
      metadata: { name: 'operator', namespace: ARGOCD_NAMESPACE } as Application['metadata'],
      spec: {
        ...template.spec,
        source: { ...template.spec.source, repoURL: repo.url, targetRevision: 'main' },
        destination: { ...template.spec.destination, namespace: ns },
      },
    };
    await apply(app);
    let live = await untilApp('operator', 'Synced', (a) => a.status?.sync?.status === 'Synced', 180_000);
    // Argo CD renders the chart's crds/ too, so it upgrades them (Helm never does).
    expect(
      live.status?.resources?.filter((r) => r.kind === 'CustomResourceDefinition').map((r) => r.name),
      JSON.stringify(live.status?.resources?.map((r) => `${r.kind}/${r.name}`)),
    ).toEqual([
      'agentdeployments.deploy.agents.dev',
      'deploymentwindowpolicies.deploy.agents.dev',
      'sandboxtemplates.deploy.agents.dev',
    ]);
    for (let i = 0; i < 2; i += 1) {
      live = await refresh('operator');
      expect(live.status?.sync?.status, JSON.stringify(live.status?.resources)).toBe('Synced');
      expect(live.status?.resources?.filter((r) => r.status !== 'Synced')).toEqual([]);
    }
  });

  // Argo CD 3.2 itself never deletes a CRD on a cascading delete; the CRDs' Delete=false and
  // helm.sh/resource-policy: keep say the same to any version, and Prune=false guards automated prune.
  it('keeps the CRDs when the Application is deleted with its resources', { timeout: 300_000 }, async () => {
    const crds = CRDS;
    const patched = await kubectl(
      [
        'patch',
        'application',
        'operator',
        '--type=merge',
        '-p',
        // Background propagation: this API server runs no garbage collector to finish a foreground one.
        '{"metadata":{"finalizers":["resources-finalizer.argocd.argoproj.io/background"]}}',
      ],
      { namespace: ARGOCD_NAMESPACE },
    );
    expect(patched.code, patched.stderr).toBe(0);
    const deleted = await kubectl(['delete', 'application', 'operator', '--wait=true', '--timeout=240s'], {
      namespace: ARGOCD_NAMESPACE,
    });
    expect(deleted.code, `${deleted.stderr}\n${argocd?.logs.slice(-30).join('\n')}`).toBe(0);
    // The cascade ran (the chart's ClusterRole is gone), and skipped the CRDs (Delete=false).
    const role = await kubectl([
      'get',
      'clusterrole',
      'operator-agent-deployment-operator',
      '--ignore-not-found',
      '-o',
      'name',
    ]);
    expect(role.stdout.trim()).toBe('');
    const kept = await kubectl(['get', ...crds, '-o', 'json']);
    expect(kept.code, kept.stderr).toBe(0);
    const items = (JSON.parse(kept.stdout) as { items: { metadata: { deletionTimestamp?: string } }[] })
      .items;
    expect(items.map((crd) => crd.metadata.deletionTimestamp)).toEqual(crds.map(() => undefined));
  });
});
