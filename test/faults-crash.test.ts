/**
 * The controller as a child process, SIGKILLed at random points while 50 objects are created and then
 * changed, and started again each time. After the last start every object converges on its last spec,
 * with exactly one deployment each: a create cut short by a kill is found again, never repeated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { DEFAULT_API_KEY, defaultListeners } from '../src/simulator/index.ts';
import { type ControllerProcess, startControllerProcess } from './support/controller-process.ts';
import {
  AGD_PATH,
  condition,
  createAgd,
  eventually,
  type Harness,
  mergePatchAgd,
  sleep,
  startHarness,
} from './support/harness.ts';
import { testKubeconfigPath } from './support/kube.ts';

const OBJECTS = 50;
const KILLS = 5;
const LISTENER = defaultListeners()[0]?.id as string;
const image = (version: number) => `registry.example.com/agent:${version}`;
const nameOf = (i: number) => `crash-${String(i).padStart(2, '0')}`;
const names = Array.from({ length: OBJECTS }, (_, i) => nameOf(i));

let h: Harness;
let controller: ControllerProcess | undefined;
const output: string[] = [];
const exits: Array<{ code: number | null; signal: NodeJS.Signals | null }> = [];
/** The image each object's spec asks for last. */
const expected = new Map<string, string>();

beforeAll(async () => {
  h = await startHarness('faults-crash', { withOperator: false, simulator: { revisionStepMs: 20 } });
});

afterAll(async () => {
  await controller?.kill();
  await h?.stop();
});

async function startController(run: number): Promise<void> {
  const env = {
    KUBECONFIG: testKubeconfigPath(),
    CONTROL_PLANE_URL: h.sim.url,
    CONTROL_PLANE_API_KEY: DEFAULT_API_KEY,
    WATCH_NAMESPACES: h.ns,
    POLL_INTERVAL: '2s',
    REVISION_POLL_INTERVAL: '300ms',
    LEADER_ELECT: 'false',
    HTTP_PORT: '0',
    LOG_LEVEL: 'info',
    WORKERS: '4',
  };
  const started = startControllerProcess(env, output, `run ${run}`);
  controller = started;
  void started.exited.then((exit) => exits.push(exit));
  await started.waitForLine((line) => line.includes('"msg":"controller started"'));
}

/** Kills at random delays after each start, so kills land among creates, patches and revision polls. */
async function killRepeatedly(delays: number[]): Promise<void> {
  for (const [i, delay] of delays.entries()) {
    await sleep(delay);
    await controller?.kill();
    await startController(i + 2);
  }
}

async function createThenChange(): Promise<void> {
  for (let batch = 0; batch < OBJECTS; batch += 10) {
    await Promise.all(
      names.slice(batch, batch + 10).map((name) => {
        expected.set(name, image(1));
        return createAgd(h, {
          metadata: { name },
          spec: {
            source: 'external_image',
            sourceConfig: { listenerId: LISTENER, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
            sourceRevisionConfig: { imageUri: image(1) },
          },
        });
      }),
    );
    await sleep(700);
  }
  // Every second object gets a new image; every sixth a third one on top, so the last spec must win.
  for (const step of [2, 6]) {
    for (let i = 0; i < OBJECTS; i += step) {
      const name = nameOf(i);
      const version = step === 2 ? 2 : 3;
      expected.set(name, image(version));
      await mergePatchAgd(h, name, { spec: { sourceRevisionConfig: { imageUri: image(version) } } });
      if (i % 10 === 0) await sleep(300);
    }
  }
}

function unconverged(items: AgentDeployment[]): string[] {
  return names.filter((name) => {
    const obj = items.find((o) => o.metadata.name === name);
    return !(
      obj &&
      condition(obj, 'Ready')?.status === 'True' &&
      obj.status?.observedGeneration === obj.metadata.generation &&
      obj.status?.revisionStatus === 'DEPLOYED' &&
      obj.status?.imageVersion === expected.get(name)
    );
  });
}

describe('controller killed with SIGKILL at random points', () => {
  it('converges every object on its last spec, with exactly one deployment each', async () => {
    const delays = Array.from({ length: KILLS }, () => Math.round(200 + Math.random() * 1_800));
    const about = `kill delays ${delays.join(', ')} ms`;
    // Latency spreads the work, and a slow POST keeps creates in flight when a kill lands: the
    // deployment is then created after its creator died, and only a lookup by name can find it.
    h.sim.setLatency({ min: 5, max: 40 });
    h.sim.addFault({ method: 'POST', route: '/v2/deployments', latencyMs: { min: 100, max: 500 } });
    await startController(1);
    await Promise.all([killRepeatedly(delays), createThenChange()]);

    const items = await eventually(
      async () => {
        const list = (await kubeRequest(h.access, { method: 'GET', path: AGD_PATH(h.ns) })) as {
          items: AgentDeployment[];
        };
        const pending = unconverged(list.items);
        if (pending.length > 0) throw new Error(`not converged: ${pending.join(', ')}`);
        return list.items;
      },
      `every object converged (${about})`,
      90_000,
    );

    expect(
      exits.filter((e) => e.signal === 'SIGKILL'),
      about,
    ).toHaveLength(KILLS);
    const deployments = h.sim.deployments();
    expect(deployments, about).toHaveLength(OBJECTS);
    for (const obj of items) {
      const name = obj.metadata.name;
      const own = deployments.filter((d) => d.name === name);
      expect(own, `${name} (${about})`).toHaveLength(1);
      expect(own[0]?.id, name).toBe(obj.status?.deploymentId);
      expect(own[0]?.source_revision_config.image_uri, name).toBe(expected.get(name));
    }
    // A second create for a name would be refused (400): none may have been tried.
    const posts = h.sim.requests({ method: 'POST', route: '/v2/deployments' });
    expect(
      posts.filter((p) => p.status !== 201).map((p) => `${(p.body as { name?: string }).name} ${p.status}`),
      about,
    ).toEqual([]);
  });
});
