/**
 * --sharding=auto with replicas as real controller processes against the run's API server and the
 * simulator: 300 objects, changed all along while one replica is SIGKILLed (and comes back as a new pod
 * would), one is added, one removed, and all three are replaced one by one (a rolling update). The
 * simulator's log, told apart by User-Agent, and the member Leases' history (watched) show that no
 * deployment was written by a replica that did not hold its object then, nor taken from another before
 * that one let go; every object converges on its last spec, and none is left unassigned. Each
 * replica caches in full its own share and what it stands by for (the objects it takes over should
 * their assignee go), the other objects as projections (its metrics say how many of each), and a spec
 * change made while an object's assignee is dead is applied by the replica that takes it over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { assigneeOf, standbyOf } from '../src/runtime/shard-assignment.ts';
import { defaultListeners } from '../src/simulator/index.ts';
import { type ControllerProcess, startControllerProcess } from './support/controller-process.ts';
import { AGD_PATH, condition, eventually, type Harness, sleep, startHarness } from './support/harness.ts';
import { deploymentWrites, LeaseHistory, replicaOf, violations } from './support/shard-audit.ts';
import { shardedReplicaEnv } from './support/sharded-replica.ts';

const OBJECTS = 300;
const GROUP = 'shards';
const LISTENER = defaultListeners()[0]?.id as string;
const names = Array.from({ length: OBJECTS }, (_, i) => `shard-${String(i).padStart(3, '0')}`);
const image = (version: number) => `registry.example.com/agent:${version}`;

let h: Harness;
const history = new LeaseHistory();
const output: string[] = [];
const replicas = new Map<string, ControllerProcess>();
/** Each replica's metrics port. */
const ports = new Map<string, number>();
/** The image each object's spec asks for last. */
const expected = new Map<string, string>();
let version = 1;

beforeAll(async () => {
  h = await startHarness('sharding', { withOperator: false, simulator: { revisionStepMs: 20 } });
  await history.start(h.access, h.ns, GROUP);
});

afterAll(async () => {
  await Promise.all([...replicas.values()].map((r) => r.kill()));
  await history.stop();
  await h?.stop();
});

/** Starts a replica as a pod named `pod` would run, and waits until it joined and works. */
async function startReplica(pod: string): Promise<void> {
  // Shorter than the defaults (15s, 10s, 2s), with room for a loaded machine's slow answers.
  const env = shardedReplicaEnv(h, pod, GROUP, { duration: '8s', renewDeadline: '5s', retryPeriod: '1s' });

  const started = startControllerProcess(env, output, pod);
  replicas.set(pod, started);
  const listening = started.waitForLine((line) => line.includes('health and metrics endpoints listening'));
  await started.waitForLine((line) => line.includes('caches synced; starting workers'));
  ports.set(pod, (JSON.parse(await listening) as { port: number }).port);
}

/**
 * What a replica's AgentDeployment cache holds, in full and as projections, and how many of those it
 * is assigned or stands by for it would have to read first (its metrics).
 */
async function cachedObjects(
  pod: string,
): Promise<{ full: number; projection: number; awaitingRead: number }> {
  const text = await (await fetch(`http://127.0.0.1:${ports.get(pod)}/metrics`)).text();
  const sample = (series: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(series))
        ?.split(' ')
        .at(-1),
    );
  const count = (form: string) =>
    sample(`agent_operator_cached_objects{kind="AgentDeployment",form="${form}"}`);
  return {
    full: count('full'),
    projection: count('projection'),
    awaitingRead: sample('agent_operator_shard_objects_awaiting_read{kind="AgentDeployment"}'),
  };
}

/** The live member a pod runs as (its identity is the pod name and a suffix). */
function memberOf(pod: string): { identity: string; acknowledged: string[] } {
  const member = history.liveAt(Date.now()).find((m) => m.identity.startsWith(`${pod}_`));
  if (!member) throw new Error(`${pod} is no live member`);
  return member;
}

const shareOf = (member: { identity: string; acknowledged: string[] }) =>
  names.filter((name) => assigneeOf(`${h.ns}/${name}`, member.acknowledged) === member.identity);
/** What a member would take over were an assignee gone (kept in full beside its share). */
const standingByOf = (member: { identity: string; acknowledged: string[] }) =>
  names.filter((name) => standbyOf(`${h.ns}/${name}`, member.acknowledged) === member.identity);

/**
 * Memory divides: each replica holds in full its share and what it stands by for (another member's
 * share it would take over), every other object as a projection.
 */
async function keptByForm(pods: string[]): Promise<void> {
  for (const pod of pods) {
    await eventually(
      async () => {
        const full = shareOf(memberOf(pod)).length + standingByOf(memberOf(pod)).length;
        expect(await cachedObjects(pod)).toEqual({
          full,
          projection: OBJECTS - full,
          awaitingRead: 0,
        });
        return true;
      },
      `${pod} caches its share and what it stands by for in full (nothing left to read), the rest as projections`,
      20_000,
    );
  }
}

/** SIGTERM: the replica finishes its passes and leaves (its Lease deleted). */
async function stopReplica(pod: string): Promise<void> {
  const replica = replicas.get(pod);
  replicas.delete(pod);
  if (!replica) return;
  process.kill(replica.pid, 'SIGTERM');
  const exit = await replica.exited;
  expect(exit.code, `${pod} stopped cleanly`).toBe(0);
}

async function killReplica(pod: string): Promise<void> {
  await replicas.get(pod)?.kill();
  replicas.delete(pod);
}

async function apply(name: string, imageUri: string, create: boolean): Promise<void> {
  expected.set(name, imageUri);
  const spec = {
    source: 'external_image',
    sourceConfig: { listenerId: LISTENER, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
    sourceRevisionConfig: { imageUri },
  };
  await kubeRequest(h.access, {
    method: create ? 'POST' : 'PATCH',
    path: create ? AGD_PATH(h.ns) : `${AGD_PATH(h.ns)}/${name}`,
    ...(create ? {} : { contentType: 'application/merge-patch+json' }),
    body: create
      ? { apiVersion: 'deploy.agents.dev/v1alpha1', kind: 'AgentDeployment', metadata: { name }, spec }
      : { spec: { sourceRevisionConfig: { imageUri } } },
  });
}

/** A new image for every `step`th object, in small batches with pauses: writes keep coming during an event. */
async function changeSome(step: number, offset: number): Promise<void> {
  version += 1;
  const batch = names.filter((_, i) => i % step === offset % step);
  for (let i = 0; i < batch.length; i += 10) {
    await Promise.all(batch.slice(i, i + 10).map((name) => apply(name, image(version), false)));
    await sleep(150);
  }
}

async function converged(why: string): Promise<void> {
  await eventually(
    async () => {
      const list = (await kubeRequest(h.access, { method: 'GET', path: AGD_PATH(h.ns) })) as {
        items: AgentDeployment[];
      };
      const pending = names.filter((name) => {
        const obj = list.items.find((o) => o.metadata.name === name);
        return !(
          obj &&
          condition(obj, 'Ready')?.status === 'True' &&
          obj.status?.observedGeneration === obj.metadata.generation &&
          obj.status?.imageVersion === expected.get(name)
        );
      });
      if (pending.length > 0) {
        const first = list.items.find((o) => o.metadata.name === pending[0]);
        throw new Error(
          `${pending.length} not converged, e.g. ${pending.slice(0, 5).join(', ')}; ${pending[0]}: ${JSON.stringify(first?.status)}`,
        );
      }
      return true;
    },
    `every object converged (${why})`,
    120_000,
  );
}

/** Every object held by exactly one live member, and all of them acknowledge the same members. */
function everyObjectAssigned(): true {
  const live = history.liveAt(Date.now());
  const lists = new Set(live.map((m) => m.acknowledged.join(',')));
  expect(lists.size, `members agree: ${[...lists].join(' | ')}`).toBe(1);
  const unassigned = names.filter(
    (name) => live.filter((m) => assigneeOf(`${h.ns}/${name}`, m.acknowledged) === m.identity).length !== 1,
  );
  expect(unassigned).toEqual([]);
  return true;
}

describe('--sharding=auto with three replicas', () => {
  it('keeps every object with one replica at a time through a crash, scale-out, scale-in and a rolling update', async () => {
    await Promise.all(['replica-a', 'replica-b', 'replica-c'].map((pod) => startReplica(pod)));
    for (let i = 0; i < OBJECTS; i += 25) {
      await Promise.all(names.slice(i, i + 25).map((name) => apply(name, image(1), true)));
    }
    await converged('created');
    await eventually(async () => everyObjectAssigned(), 'every object assigned', 20_000);
    // Memory divides: each replica holds in full its share and what it stands by for (another
    // member's share it would take over), every other object as a projection.
    await keptByForm(['replica-a', 'replica-b', 'replica-c']);

    // A crash: its objects move once its Lease expired; Kubernetes starts a new pod in its place.
    const orphaned = shareOf(memberOf('replica-b'));
    await Promise.all([changeSome(4, 0), sleep(300).then(() => killReplica('replica-b'))]);
    // Changed while their assignee is dead (its Lease not expired yet): whoever takes one over applies
    // its new image (its standby's cache follows the watch).
    version += 1;
    for (let i = 0; i < orphaned.length; i += 25) {
      await Promise.all(orphaned.slice(i, i + 25).map((name) => apply(name, image(version), false)));
    }
    await startReplica('replica-b2');
    await converged('after a SIGKILL');

    // Scale out to four, then back in to three.
    await Promise.all([changeSome(4, 1), startReplica('replica-d')]);
    await converged('after adding a replica');
    await Promise.all([changeSome(4, 2), sleep(300).then(() => stopReplica('replica-c'))]);
    await converged('after removing a replica');
    // What each stands by for changed twice, with no watch event for most objects: read in full anyway.
    await keptByForm(['replica-a', 'replica-b2', 'replica-d']);

    // A rolling update: a new pod first, then the old one goes, one by one.
    for (const [old, next] of [
      ['replica-a', 'replica-a2'],
      ['replica-b2', 'replica-b3'],
      ['replica-d', 'replica-d2'],
    ] as const) {
      await Promise.all([changeSome(6, version), startReplica(next).then(() => stopReplica(old))]);
    }
    await converged('after a rolling update');
    await eventually(async () => everyObjectAssigned(), 'every object assigned after all', 20_000);

    const ids = new Map(h.sim.deployments().map((d) => [d.id, d.name]));
    const writes = deploymentWrites(h.sim.requests(), h.ns, (id) => ids.get(id));

    // Steady: each replica's batched poll lists its own share, all of it, and nothing else (so a poll
    // costs it ceil(share/100) calls, not ceil(N/100)).
    const idOf = new Map([...ids].map(([id, name]) => [`${h.ns}/${name}`, id]));
    const since = Date.now();
    await sleep(5_000);
    const members = history.liveAt(Date.now());
    expect(members).toHaveLength(3);
    for (const member of members) {
      const share = new Set(
        names
          .map((name) => `${h.ns}/${name}`)
          .filter((key) => assigneeOf(key, member.acknowledged) === member.identity)
          .map((key) => idOf.get(key)),
      );
      const listed = new Set(
        h.sim
          .requests({ method: 'GET', route: '/v2/deployments' })
          .filter((r) => r.at >= since && replicaOf(r.userAgent) === member.identity)
          .flatMap((r) => (r.query.deployment_ids ?? '').split(',').filter(Boolean)),
      );
      expect(
        [...listed].filter((id) => !share.has(id)),
        `${member.identity} lists only its share`,
      ).toEqual([]);
      expect(listed.size, `${member.identity} lists all its share`).toBe(share.size);
    }
    // Each write names its replica by pod name, and the work was shared.
    const writers = new Set(writes.map((w) => w.replica.replace(/_[0-9a-f]{8}$/, '')));
    expect([...writers].filter((pod) => !pod.startsWith('replica-'))).toEqual([]);
    expect(writers.size).toBeGreaterThanOrEqual(5);
    expect(violations(writes, history)).toEqual([]);
    // Exactly one deployment per object: no create was repeated by a second replica.
    expect(h.sim.deployments()).toHaveLength(OBJECTS);
    // Every replica saw the member Leases as they were written (a failed watch falls back to listings).
    expect(output.filter((line) => line.includes('the member Lease watch failed'))).toEqual([]);
  }, 600_000);
});
