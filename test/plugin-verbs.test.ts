/**
 * The hands-on verbs (`kubectl agd history|suspend|resume|reconcile|undo|status`) run as a user runs them:
 * kubectl finds `kubectl-agd` on PATH (the plugin `make run` writes, running this clone's CLI) and
 * runs it against the run's API server, where the controller reconciles with the simulator as its
 * control plane. Completion goes through kubectl too (`kubectl __complete agd ...`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeKubectlPlugin } from '../scripts/shell-env.ts';
import { GROUP, SANDBOX_TEMPLATE, VERSION } from '../src/api/group.ts';
import { Annotation } from '../src/api/names.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { REPO, type RunResult, run } from './packaging-helpers.ts';
import { externalImage } from './support/agd-objects.ts';
import {
  createAgd,
  eventually,
  getAgd,
  type Harness,
  mergePatchAgd,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { testKubeconfigPath } from './support/kube.ts';

let h: Harness;
let work: string;
let pluginDir: string;

beforeAll(async () => {
  h = await startHarness('plugin-verbs');
  work = mkdtempSync(join(tmpdir(), 'agd-verbs-'));
  pluginDir = writeKubectlPlugin(work, REPO);
  await createAgd(h, externalImage('steady'));
  await createAgd(h, externalImage('other'));
  await Promise.all([waitReady(h, 'steady'), waitReady(h, 'other')]);
}, 120_000);
afterAll(async () => {
  await h?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `kubectl ARGS`, finding the plugin on PATH only, against the run's API server. */
function kubectl(...args: string[]): Promise<RunResult> {
  return run(join(inject('kubeBinDir'), 'kubectl'), args, {
    cwd: work,
    env: {
      PATH: [pluginDir, '/usr/bin', '/bin'].join(delimiter),
      HOME: work,
      KUBECONFIG: testKubeconfigPath(),
    },
  });
}
const agd = (...args: string[]) => kubectl('agd', ...args, '-n', h.ns);

describe('kubectl agd, through kubectl plugin discovery', () => {
  it('status follows an object to Ready: exit 0', async () => {
    const result = await agd('status', 'steady', '--timeout', '60s');
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(
      /^AgentDeployment "steady" is ready: Succeeded: .*\(revision \S+ DEPLOYED\)$/m,
    );
    expect(result.code).toBe(0);
  });

  it('status of an object whose revision fails: the failure, on stderr, and exit 1', async () => {
    h.sim.failRevisions({ deploymentName: 'failing', at: 'DEPLOY' });
    await createAgd(h, externalImage('failing'));
    const result = await agd('status', 'failing', '--timeout', '60s');
    expect(result.stderr).toMatch(/^AgentDeployment "failing" failed: RevisionFailed: /m);
    expect(result.code).toBe(1);
  });

  it('status of an object still building: a line per state, then exit 1 at --timeout; reconcile answers 0', async () => {
    h.sim.scriptRevisions({ deploymentName: 'held', hold: 'BUILDING' });
    await createAgd(h, externalImage('held'));
    await eventually(async () => (await getAgd(h, 'held')).status?.revisionStatus === 'BUILDING', 'BUILDING');
    const status = await agd('status', 'held', '--timeout', '3s');
    expect(status.stdout).toMatch(/^Waiting for AgentDeployment "held": \w+: .*\(revision \S+ BUILDING\)$/m);
    expect(new Set(status.stdout.trim().split('\n')).size).toBe(status.stdout.trim().split('\n').length);
    expect(status.stderr).toBe(`kubectl-agd status: timed out following AgentDeployment ${h.ns}/held\n`);
    expect(status.code).toBe(1);
    // The pass that answers the request finds it building: said, and not a failure.
    const reconcile = await agd('reconcile', 'held', '--timeout', '60s');
    expect(reconcile.stdout).toMatch(/^Waiting for AgentDeployment \S+\/held: .*BUILDING\)$/m);
    expect(reconcile.code, reconcile.stderr).toBe(0);
  });

  it('history: the revisions as a table', async () => {
    const result = await agd('history', 'steady');
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rows] = result.stdout.trim().split('\n');
    expect(header).toMatch(/^ID\s+CONFIGURATION\s+TRIGGER\s+OUTCOME\s+WHEN$/);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/registry\.example\.com\/agent:1\s+Spec\s+Deployed, active, last good\s+\S+Z$/);
  });

  it('reconcile: requests a pass and waits for the one that answers it', async () => {
    const result = await agd('reconcile', 'steady', '--timeout', '60s');
    expect(result.code, result.stderr).toBe(0);
    const requested = /reconcile requested \((\S+)\)/.exec(result.stdout)?.[1];
    expect(requested).toBeDefined();
    expect(result.stdout).toContain(`AgentDeployment ${h.ns}/steady is ready: Succeeded: `);
    const obj = await getAgd(h, 'steady');
    expect(obj.metadata.annotations?.[Annotation.ReconcileRequestedAt]).toBe(requested);
    expect(obj.status?.lastHandledReconcileAt).toBe(requested);
  });

  it('suspend and resume: the paused annotation; a suspended object is neither reconciled nor followed', async () => {
    const suspended = await agd('suspend', 'steady');
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(suspended.stdout).toBe(`AgentDeployment ${h.ns}/steady suspended\n`);
    expect((await getAgd(h, 'steady')).metadata.annotations?.[Annotation.Paused]).toBe('true');
    expect((await agd('suspend', 'steady')).stdout).toContain('is suspended already');

    const reconcile = await agd('reconcile', 'steady');
    expect(reconcile.code).toBe(1);
    expect(reconcile.stderr).toContain('is suspended: resume it first');
    const status = await agd('status', 'steady');
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('AgentDeployment "steady" is suspended');

    const resumed = await agd('resume', 'steady');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe(`AgentDeployment ${h.ns}/steady resumed\n`);
    expect((await getAgd(h, 'steady')).metadata.annotations?.[Annotation.Paused]).toBeUndefined();
  });

  it('--all: every AgentDeployment of the namespace', async () => {
    const suspended = await agd('suspend', '--all');
    expect(suspended.code, suspended.stderr).toBe(0);
    for (const name of ['failing', 'held', 'other', 'steady']) {
      expect(suspended.stdout).toContain(`AgentDeployment ${h.ns}/${name} suspended`);
      await eventually(
        async () => (await getAgd(h, name)).metadata.annotations?.[Annotation.Paused] === 'true',
        `${name} paused`,
      );
    }
    const resumed = await agd('resume', '--all');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim().split('\n')).toHaveLength(4);
  });

  it('a SandboxTemplate by KIND/NAME: suspend, status and resume; history is for AgentDeployments only', async () => {
    await kubeRequest(h.access, {
      method: 'POST',
      path: `/apis/${GROUP}/${VERSION}/namespaces/${h.ns}/${SANDBOX_TEMPLATE.plural}`,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: SANDBOX_TEMPLATE.kind,
        metadata: { name: 'python' },
        spec: { templateName: 'python', image: 'python:3.12-slim' },
      },
    });
    const suspended = await agd('suspend', 'sbt/python');
    expect(suspended.stdout, suspended.stderr).toBe(`SandboxTemplate ${h.ns}/python suspended\n`);
    const status = await agd('status', 'sandboxtemplate/python');
    expect(status.stdout).toContain('SandboxTemplate "python" is suspended');
    expect(status.code).toBe(1);
    expect((await agd('resume', 'sbt/python')).stdout).toBe(`SandboxTemplate ${h.ns}/python resumed\n`);
    const history = await agd('history', 'sbt/python');
    expect(history.code).toBe(1);
    expect(history.stderr).toContain('the kind must be one of agentdeployment');
  });

  it('undo: one redeploy of the revision before, no PATCH, held as RolledBack, never again', async () => {
    await createAgd(h, externalImage('undone'));
    await waitReady(h, 'undone');
    await mergePatchAgd(h, 'undone', {
      spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/agent:2' } },
    });
    await eventually(async () => {
      const obj = await getAgd(h, 'undone');
      return obj.status?.history?.length === 2 && obj.status.history[0]?.outcome === 'Deployed';
    }, 'the second revision deployed');
    const first = (await getAgd(h, 'undone')).status?.history?.[1]?.id as string;
    const deployment = h.sim.deployments().find((d) => d.name === 'undone');
    const writes = () =>
      h.sim
        .requests()
        .filter((r) => r.method !== 'GET' && r.status > 0 && r.path.includes(deployment?.id ?? '?'))
        .map((r) => `${r.method} ${r.route}`);
    const before = writes().length;

    const result = await agd('undo', 'undone', '--timeout', '60s');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/undo requested \(\S+\)\n/);
    await eventually(async () => {
      const ready = (await getAgd(h, 'undone')).status?.conditions?.find((c) => c.type === 'Stalled');
      return ready?.reason === 'RolledBack';
    }, 'RolledBack');
    const obj = await getAgd(h, 'undone');
    expect(obj.status?.history?.[0]).toMatchObject({ trigger: 'Rollback', redeployOf: first });
    // Several poll intervals (1 s here) later: still the one redeploy, and the spec's image not sent again.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(writes().slice(before)).toEqual([
      'POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy',
    ]);
    expect((await agd('history', 'undone')).stdout).toMatch(/Rollback/);
  });

  it('undo to a revision that never deployed: refused, exit 1, nothing sent', async () => {
    const result = await agd('undo', 'steady', '--to-revision', 'no-such-revision', '--timeout', '60s');
    expect(result.stderr).toMatch(
      /UndoRefused: annotation deploy\.agents\.dev\/undo-requested-at=\S+: revision no-such-revision is not one of status\.history/,
    );
    expect(result.code).toBe(1);
  });

  it('an object that does not exist: exit 1, saying so', async () => {
    const result = await agd('history', 'absent');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^kubectl-agd history: not found: /);
  });

  it('kubectl completes the names of the namespace', async () => {
    const result = await kubectl('__complete', 'agd', 'status', '-n', h.ns, 'st');
    expect(result.stdout.split('\n')).toEqual(expect.arrayContaining(['steady', ':4']));
    expect(result.stdout).not.toContain('other');
  });
});
