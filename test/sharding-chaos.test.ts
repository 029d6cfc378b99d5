/**
 * Nothing lost under sharding (issue 50): three replicas under --sharding=auto as real controller
 * processes, one SIGKILLed and started again every few seconds, while the simulator answers with 503
 * bursts, dropped connections, slow writes and PATCHes applied late after their answer was lost, and
 * the objects are edited and deleted throughout. At the end, once every object says Ready at its
 * generation and has for a few poll intervals, each deployment on the platform carries its object's
 * image, every deleted object's deployment is gone, and no name has two deployments.
 *
 * CHAOS_RUNS repeats the whole run in one file (the ten runs in a row); `make test` runs one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { defaultListeners } from '../src/simulator/index.ts';
import type { ControllerProcess } from './support/controller-process.ts';
import { AGD_PATH, condition, type Harness, sleep, startHarness } from './support/harness.ts';
import { startShardedReplica } from './support/sharded-replica.ts';

const RUNS = Number(process.env.CHAOS_RUNS ?? 1);
const OBJECTS = 18;
const CHAOS_MS = 36_000;
const LISTENER = defaultListeners()[0]?.id as string;
const PODS = ['chaos-a', 'chaos-b', 'chaos-c'];
const DEPLOYMENT = '/v2/deployments/{deployment_id}';

let h: Harness;
const output: string[] = [];
const replicas = new Map<string, ControllerProcess>();

beforeAll(async () => {
  h = await startHarness('sharding-chaos', { withOperator: false, simulator: { revisionStepMs: 20 } });
});

afterAll(async () => {
  await Promise.all([...replicas.values()].map((r) => r.kill()));
  await h?.stop();
});

// The sharded defaults, a little longer for a loaded machine.
const startReplica = (pod: string, group: string) =>
  startShardedReplica(
    h,
    pod,
    group,
    { duration: '8s', renewDeadline: '5s', retryPeriod: '1s' },
    { replicas, output },
  );

const image = (name: string, version: number) => `registry.example.com/${name}:v${version}`;

const objectPath = (name: string) => `${AGD_PATH(h.ns)}/${name}`;

const create = (name: string) =>
  kubeRequest(h.access, {
    method: 'POST',
    path: AGD_PATH(h.ns),
    body: {
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'AgentDeployment',
      metadata: { name },
      spec: {
        source: 'external_image',
        sourceConfig: { listenerId: LISTENER, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
        sourceRevisionConfig: { imageUri: image(name, 1) },
      },
    },
  });

const edit = (name: string, version: number) =>
  kubeRequest(h.access, {
    method: 'PATCH',
    path: objectPath(name),
    contentType: 'application/merge-patch+json',
    body: { spec: { sourceRevisionConfig: { imageUri: image(name, version) } } },
  });

/** The objects of one run (runs share the namespace; each names its objects r<run>-…). */
const listObjects = async (run: number) =>
  (
    (await kubeRequest(h.access, { method: 'GET', path: AGD_PATH(h.ns) })) as { items: AgentDeployment[] }
  ).items.filter((o) => o.metadata.name.startsWith(`r${run}-`));

const readyAtGeneration = (o: AgentDeployment) =>
  condition(o, 'Ready')?.status === 'True' &&
  condition(o, 'Ready')?.observedGeneration === o.metadata.generation &&
  o.status?.observedGeneration === o.metadata.generation;

/** Waits until every object has been Ready at its generation for `steadyMs` without a break. */
async function settled(run: number, steadyMs: number, timeoutMs: number): Promise<AgentDeployment[]> {
  const deadline = Date.now() + timeoutMs;
  let since: number | undefined;
  for (;;) {
    const all = await listObjects(run);
    const objects = all.filter((o) => !o.metadata.deletionTimestamp);
    const pending = all.length - objects.length;
    if (pending === 0 && objects.every(readyAtGeneration)) {
      since ??= Date.now();
      if (Date.now() - since >= steadyMs) return objects;
    } else {
      since = undefined;
    }
    if (Date.now() > deadline) {
      const notReady = objects.filter((o) => !readyAtGeneration(o)).map((o) => o.metadata.name);
      throw new Error(`not settled: ${pending} deleting, not Ready: ${notReady.join(', ')}`);
    }
    await sleep(500);
  }
}

const random = (n: number) => Math.floor(Math.random() * n);

async function chaosRun(run: number): Promise<void> {
  const group = `chaos-${run}`;
  const names = Array.from({ length: OBJECTS }, (_, i) => `r${run}-c${i}`);
  await Promise.all(PODS.map((pod) => startReplica(pod, group)));
  await Promise.all(names.map(create));
  await settled(run, 0, 120_000);

  const version = new Map(names.map((n) => [n, 1]));
  const live = new Set(names);
  const deleted = new Set<string>();
  const faults = [
    // Bursts of 503 and dropped connections on every call.
    h.sim.addFault({ probability: 0.08, status: 503, retryAfterSeconds: 1 }),
    h.sim.addFault({ probability: 0.04, dropConnection: true }),
    // Writes answered late; PATCHes whose answer is lost and which the platform applies later.
    h.sim.addFault({ method: 'POST', latencyMs: { min: 1_000, max: 2_000 }, probability: 0.5 }),
    h.sim.addFault({
      method: 'PATCH',
      route: DEPLOYMENT,
      dropResponse: 'commit-later',
      commitAfterMs: 1_500,
      probability: 0.15,
    }),
    h.sim.addFault({
      method: 'PATCH',
      route: DEPLOYMENT,
      latencyMs: { min: 1_000, max: 2_000 },
      probability: 0.4,
    }),
  ];
  const restarts: Promise<void>[] = [];
  const startedAt = Date.now();
  let nextKill = startedAt + 6_000 + random(4_000);
  while (Date.now() - startedAt < CHAOS_MS) {
    const names = [...live];
    const name = names[random(names.length)] as string;
    if (Math.random() < 0.06 && live.size > OBJECTS / 2) {
      await kubeRequest(h.access, { method: 'DELETE', path: objectPath(name) });
      live.delete(name);
      deleted.add(name);
    } else {
      const next = (version.get(name) ?? 1) + 1;
      await edit(name, next);
      version.set(name, next);
    }
    if (Date.now() >= nextKill) {
      const pod = PODS[random(PODS.length)] as string;
      await replicas.get(pod)?.kill();
      // Started again a moment later, as a Deployment's pod would be.
      restarts.push(sleep(2_000).then(() => startReplica(pod, group)));
      nextKill = Date.now() + 8_000 + random(6_000);
    }
    await sleep(300 + random(400));
  }
  for (const remove of faults) remove();
  // Every replica back before the end is judged.
  await Promise.all(restarts);

  // Steady for three poll intervals (2 s): a Ready object whose platform differs is found by then.
  const objects = await settled(run, 6_000, 180_000);
  const deployments = h.sim.deployments();
  const byName = (name: string) => deployments.filter((d) => d.name === name);
  const wrong = objects.flatMap((o) => {
    const platform = byName(o.spec.name ?? o.metadata.name).map((d) => d.source_revision_config.image_uri);
    const wanted = o.spec.sourceRevisionConfig?.imageUri;
    return platform.length === 1 && platform[0] === wanted
      ? []
      : [`${o.metadata.name}: spec ${wanted}, platform ${platform.join(' + ') || 'none'}`];
  });
  expect(wrong, 'every deployment carries its object’s image').toEqual([]);
  expect(objects.map((o) => o.metadata.name).sort()).toEqual([...live].sort());
  const orphans = [...deleted].filter((name) => byName(name).some((d) => d.status !== 'AWAITING_DELETE'));
  expect(orphans, 'deleted objects leave no deployment').toEqual([]);

  await Promise.all([...replicas.values()].map((r) => r.kill()));
  replicas.clear();
}

describe('nothing lost under sharding', () => {
  for (let run = 1; run <= RUNS; run++) {
    it(`run ${run}: every edit reaches the platform through kills, faults and late writes`, async () => {
      await chaosRun(run);
    }, 420_000);
  }
});
