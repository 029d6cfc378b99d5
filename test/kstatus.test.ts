/**
 * What readiness tools conclude about our objects: sigs.k8s.io/cli-utils' kstatus (Flux health checks,
 * Helm's --wait, kpt and Config Sync use it), run as the real Go library on each object as the API server
 * returns it, in every state the real controller and the simulator drive it into. Above all an object no
 * controller has seen yet must be InProgress, not Current: the status default of the CRDs makes it so.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, SANDBOX_TEMPLATE, VERSION } from '../src/api/group.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { externalImage, repoHost } from './support/agd-objects.ts';
import { FIRST_BUILD_TIMEOUT_MS, goTool } from './support/go-tools.ts';
import {
  AGD_PATH,
  condition,
  deleteAgd,
  eventually,
  getAgd,
  type Harness,
  mergePatchAgd,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { createTestNamespace } from './support/kube.ts';

interface Verdict {
  status: string;
  message: string;
}

let h: Harness;
let kstatusBinary: string;

beforeAll(async () => {
  kstatusBinary = await goTool('kstatus-binary.sh');
  h = await startHarness('kstatus');
}, FIRST_BUILD_TIMEOUT_MS);

afterAll(async () => {
  await h?.stop();
});

/** kstatus' verdict on one object, from the Go library itself. */
function kstatus(obj: unknown): Promise<Verdict> {
  return new Promise((resolve, reject) => {
    const child = execFile(kstatusBinary, (err, stdout, stderr) => {
      if (err) reject(new Error(`kstatus failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout) as Verdict);
    });
    child.stdin?.end(JSON.stringify(obj));
  });
}

const SBT_PATH = (ns: string) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${SANDBOX_TEMPLATE.plural}`;

function create(path: string, kind: string, obj: Record<string, unknown>): Promise<unknown> {
  return kubeRequest(h.access, {
    method: 'POST',
    path,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind, ...obj },
  });
}

/** Polls the object until `state` holds, then returns kstatus' verdict on that very object. */
async function verdictWhen(
  name: string,
  what: string,
  state: (obj: Awaited<ReturnType<typeof getAgd>>) => boolean,
): Promise<Verdict> {
  const obj = await eventually(async () => {
    const o = await getAgd(h, name);
    return state(o) ? o : undefined;
  }, `${name}: ${what}`);
  return kstatus(obj);
}

const observed = (o: Awaited<ReturnType<typeof getAgd>>) =>
  o.status?.observedGeneration === o.metadata.generation;

describe('kstatus on objects no controller has seen', () => {
  it('reads a new AgentDeployment and SandboxTemplate as InProgress, in the create answer and on every read', async () => {
    // A namespace the controller does not watch: nothing will ever observe these objects.
    const unwatched = await createTestNamespace('kstatus-unseen');
    const agd = await create(`${AGD_PATH(unwatched)}`, 'AgentDeployment', externalImage('unseen'));
    const sbt = await create(SBT_PATH(unwatched), SANDBOX_TEMPLATE.kind, {
      metadata: { name: 'unseen' },
      spec: { templateName: 'python-3.12' },
    });
    const reads = await Promise.all([
      kubeRequest(h.access, { method: 'GET', path: `${AGD_PATH(unwatched)}/unseen` }),
      kubeRequest(h.access, { method: 'GET', path: `${SBT_PATH(unwatched)}/unseen` }),
      kubeRequest(h.access, { method: 'GET', path: AGD_PATH(unwatched) }).then(
        (list) => (list as { items: unknown[] }).items[0],
      ),
    ]);
    for (const [kind, obj] of [
      ['AgentDeployment', agd],
      ['SandboxTemplate', sbt],
      ['AgentDeployment', reads[0]],
      ['SandboxTemplate', reads[1]],
      ['AgentDeployment', reads[2]],
    ] as const) {
      expect(await kstatus(obj)).toEqual({
        status: 'InProgress',
        message: `${kind} generation is 1, but latest observed generation is 0`,
      });
    }
  });
});

describe('kstatus on objects the controller drives', () => {
  it('held by a closed deployment window: InProgress, never Failed', async () => {
    const later = (new Date().getUTCHours() + 12) % 24;
    await create(
      AGD_PATH(h.ns),
      'AgentDeployment',
      externalImage('windowed', {
        deploymentWindows: [{ kind: 'Allow', schedule: `0 ${later} * * *`, duration: '1h' }],
      }),
    );
    const verdict = await verdictWhen(
      'windowed',
      'WindowClosed',
      (o) => observed(o) && condition(o, 'Reconciling')?.reason === 'WindowClosed',
    );
    expect(verdict.status).toBe('InProgress');
  });

  it('deploying: InProgress while the revision builds', async () => {
    h.sim.scriptRevisions({ deploymentName: 'deploying', hold: 'BUILDING' });
    await create(AGD_PATH(h.ns), 'AgentDeployment', externalImage('deploying'));
    const verdict = await verdictWhen(
      'deploying',
      'Reconciling',
      (o) => observed(o) && o.status?.revisionStatus === 'BUILDING',
    );
    expect(verdict.status).toBe('InProgress');
  });

  it('Ready: Current', async () => {
    await create(AGD_PATH(h.ns), 'AgentDeployment', externalImage('ready'));
    expect(await kstatus(await waitReady(h, 'ready'))).toEqual({
      status: 'Current',
      message: 'Resource is Ready',
    });
  });

  it('a spec edit: InProgress from the edit on, until the new revision is deployed', async () => {
    await create(AGD_PATH(h.ns), 'AgentDeployment', externalImage('edited'));
    await waitReady(h, 'edited');
    h.sim.scriptRevisions({ deploymentName: 'edited', hold: 'DEPLOYING' });
    const answer = await mergePatchAgd(h, 'edited', {
      spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/agent:2' } },
    });
    expect(await kstatus(answer)).toEqual({
      status: 'InProgress',
      message: 'AgentDeployment generation is 2, but latest observed generation is 1',
    });
    const following = await verdictWhen(
      'edited',
      'the new revision deploying',
      (o) => observed(o) && o.status?.revisionStatus === 'DEPLOYING',
    );
    expect(following.status).toBe('InProgress');
  });

  it('a failed build: Failed', async () => {
    h.sim.failRevisions({ deploymentName: 'build-failed', at: 'BUILD' });
    await create(AGD_PATH(h.ns), 'AgentDeployment', externalImage('build-failed'));
    const verdict = await verdictWhen(
      'build-failed',
      'Stalled',
      (o) => observed(o) && condition(o, 'Stalled')?.status === 'True',
    );
    expect(verdict.status).toBe('Failed');
  });

  it('rolled back (spec.remediation Rollback): Failed, with the message naming the revisions', async () => {
    const at = (repoRef: string) => ({
      sourceRevisionConfig: { repoRef, graphConfigPath: 'langgraph.json' },
    });
    h.sim.configureRevisionAgent('refs/tags/kstatus-bad', { graph: { fail: true } });
    await create(
      AGD_PATH(h.ns),
      'AgentDeployment',
      repoHost('rolled-back', {
        ...at('refs/tags/v1'),
        verification: { assistantId: 'agent', webhook: false },
        remediation: { strategy: 'Rollback' },
      }),
    );
    await waitReady(h, 'rolled-back');
    await mergePatchAgd(h, 'rolled-back', { spec: at('refs/tags/kstatus-bad') });
    const verdict = await verdictWhen(
      'rolled-back',
      'Stalled RolledBack',
      (o) => observed(o) && condition(o, 'Stalled')?.reason === 'RolledBack',
    );
    expect(verdict.status).toBe('Failed');
    expect(verdict.message).toContain('rolled back to revision');
  });

  it.each([
    [
      'running: InProgress',
      'analysis-running',
      { successCondition: 'true' },
      'Reconciling',
      'AnalysisRunning',
      'InProgress',
    ],
    [
      'inconclusive, paused for a person: InProgress',
      'analysis-paused',
      { successCondition: 'result.successRate > 2.0', failureCondition: 'result.successRate < 0.0' },
      'Paused',
      'AnalysisInconclusive',
      'InProgress',
    ],
    [
      'failed, spec.remediation None: Failed',
      'analysis-failed',
      { successCondition: 'result.successRate > 2.0' },
      'Stalled',
      'AnalysisFailed',
      'Failed',
    ],
  ])('an analysis (spec.analysis) %s', async (_, name, conditions, type, reason, status) => {
    await create(
      AGD_PATH(h.ns),
      'AgentDeployment',
      repoHost(name, {
        sourceRevisionConfig: { repoRef: 'refs/tags/v1', graphConfigPath: 'langgraph.json' },
        analysis: {
          count: 2,
          interval: '1h',
          metrics: [{ name: 'success', agentServer: { assistantId: 'agent', runs: 1 }, ...conditions }],
        },
      }),
    );
    const verdict = await verdictWhen(
      name,
      reason,
      (o) => observed(o) && condition(o, type)?.status === 'True' && condition(o, type)?.reason === reason,
    );
    expect(verdict.status).toBe(status);
  });

  it('a spec the control plane rejects (422): Failed', async () => {
    await create(
      AGD_PATH(h.ns),
      'AgentDeployment',
      externalImage('rejected', {}, { listenerId: 'not-a-uuid' }),
    );
    const verdict = await verdictWhen(
      'rejected',
      'Stalled Rejected',
      (o) => observed(o) && condition(o, 'Stalled')?.reason === 'Rejected',
    );
    expect(verdict.status).toBe('Failed');
  });

  it('a missing Secret: InProgress (it waits for the Secret)', async () => {
    await create(
      AGD_PATH(h.ns),
      'AgentDeployment',
      externalImage('no-secret', {
        secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'absent', key: 'token' } } }],
      }),
    );
    const verdict = await verdictWhen(
      'no-secret',
      'WaitingForSecret',
      (o) => observed(o) && condition(o, 'Ready')?.reason === 'WaitingForSecret',
    );
    expect(verdict.status).toBe('InProgress');
  });

  it('a SandboxTemplate whose template is not found: InProgress (it is looked for again)', async () => {
    await create(SBT_PATH(h.ns), SANDBOX_TEMPLATE.kind, {
      metadata: { name: 'missing' },
      spec: { templateName: 'no-such-template' },
    });
    const obj = await eventually(async () => {
      const o = (await kubeRequest(h.access, {
        method: 'GET',
        path: `${SBT_PATH(h.ns)}/missing`,
      })) as Awaited<ReturnType<typeof getAgd>>;
      return observed(o) && condition(o, 'Ready')?.reason === 'NotFound' ? o : undefined;
    }, 'missing NotFound');
    expect((await kstatus(obj)).status).toBe('InProgress');
  });

  it('deleting: Terminating while the platform deletes the deployment', async () => {
    await create(AGD_PATH(h.ns), 'AgentDeployment', externalImage('deleting'));
    await waitReady(h, 'deleting');
    h.sim.holdDeletions(true);
    try {
      await deleteAgd(h, 'deleting');
      const verdict = await verdictWhen(
        'deleting',
        'Deleting',
        (o) => condition(o, 'Reconciling')?.reason === 'Deleting',
      );
      expect(verdict.status).toBe('Terminating');
    } finally {
      h.sim.holdDeletions(false);
    }
  });
});
