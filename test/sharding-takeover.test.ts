/**
 * A takeover under --sharding=auto: two replicas as real controller processes, one SIGKILLed, and
 * while its Lease has not expired yet its objects change every way they can: a spec change, a
 * deployment changed behind the controller's back, a deletion, and a new object the dead replica
 * would be assigned. The survivor takes the objects over (the unchanged ones pass without a token of the
 * pace, first-listing.ts) and still applies every change: nothing is skipped for having been listed
 * unchanged, and the unchanged objects get no write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { assigneeOf } from '../src/runtime/shard-assignment.ts';
import { DEFAULT_API_KEY, defaultListeners } from '../src/simulator/index.ts';
import type { ControllerProcess } from './support/controller-process.ts';
import { AGD_PATH, condition, eventually, type Harness, startHarness } from './support/harness.ts';
import { deploymentWrites, LeaseHistory, violations } from './support/shard-audit.ts';
import { startShardedReplica } from './support/sharded-replica.ts';

const OBJECTS = 40;
const GROUP = 'takeover';
const LISTENER = defaultListeners()[0]?.id as string;
const IMAGE = 'registry.example.com/agent:1';
const names = Array.from({ length: OBJECTS }, (_, i) => `takeover-${String(i).padStart(2, '0')}`);

let h: Harness;
const history = new LeaseHistory();
const output: string[] = [];
const replicas = new Map<string, ControllerProcess>();

beforeAll(async () => {
  h = await startHarness('sharding-takeover', { withOperator: false, simulator: { revisionStepMs: 20 } });
  await history.start(h.access, h.ns, GROUP);
});

afterAll(async () => {
  await Promise.all([...replicas.values()].map((r) => r.kill()));
  await history.stop();
  await h?.stop();
});

// Longer than the sharded defaults (6s, 4s, 1s): room for a loaded machine's slow answers, and for the
// changes below to land before the dead replica's Lease expires.
const startReplica = (pod: string) =>
  startShardedReplica(
    h,
    pod,
    GROUP,
    { duration: '10s', renewDeadline: '6s', retryPeriod: '1s' },
    { replicas, output },
  );

const spec = (imageUri: string) => ({
  source: 'external_image',
  sourceConfig: { listenerId: LISTENER, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
  sourceRevisionConfig: { imageUri },
});

const create = (name: string) =>
  kubeRequest(h.access, {
    method: 'POST',
    path: AGD_PATH(h.ns),
    body: {
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'AgentDeployment',
      metadata: { name },
      spec: spec(IMAGE),
    },
  });

const listObjects = async () =>
  ((await kubeRequest(h.access, { method: 'GET', path: AGD_PATH(h.ns) })) as { items: AgentDeployment[] })
    .items;

const readyAt = (obj: AgentDeployment | undefined, image: string) =>
  !!obj &&
  condition(obj, 'Ready')?.status === 'True' &&
  obj.status?.observedGeneration === obj.metadata.generation &&
  obj.status?.imageVersion === image;

describe('a takeover under --sharding=auto', () => {
  it('applies every change made while the assignee was dead, and writes nothing for the unchanged', async () => {
    await Promise.all(['replica-a', 'replica-b'].map((pod) => startReplica(pod)));
    await Promise.all(names.map(create));
    await eventually(
      async () => (await listObjects()).filter((o) => readyAt(o, IMAGE)).length === OBJECTS,
      `all ${OBJECTS} Ready`,
      120_000,
    );
    const members = await eventually(async () => {
      const live = history.liveAt(Date.now());
      const agreed = live.length === 2 && new Set(live.map((m) => m.acknowledged.join(','))).size === 1;
      return agreed ? live : undefined;
    }, 'both members agree');
    const identities = members.map((m) => m.identity).sort();
    const victim = identities.find((id) => id.startsWith('replica-a_')) as string;
    const survivor = identities.find((id) => id.startsWith('replica-b_')) as string;
    const keyOf = (name: string) => `${h.ns}/${name}`;
    const orphaned = names.filter((name) => assigneeOf(keyOf(name), identities) === victim);
    expect(orphaned.length).toBeGreaterThanOrEqual(6);
    const [specChanged, drifted, deleted] = orphaned as [string, string, string];
    // A new object the dead replica would be assigned: it is created by the survivor, after the takeover.
    const created = Array.from({ length: 100 }, (_, i) => `takeover-new-${i}`).find(
      (name) => assigneeOf(keyOf(name), identities) === victim,
    ) as string;
    const before = new Map((await listObjects()).map((o) => [o.metadata.name, o]));
    const idOf = (name: string) => before.get(name)?.status?.deploymentId as string;

    await replicas.get('replica-a')?.kill();
    replicas.delete('replica-a');
    const killedAt = Date.now();
    // While its Lease has not expired yet (the survivor's queue does not take these objects yet).
    await kubeRequest(h.access, {
      method: 'PATCH',
      path: `${AGD_PATH(h.ns)}/${specChanged}`,
      contentType: 'application/merge-patch+json',
      body: { spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/agent:2' } } },
    });
    const edited = await fetch(`${h.sim.url}/v2/deployments/${idOf(drifted)}`, {
      method: 'PATCH',
      headers: { 'X-Api-Key': DEFAULT_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ source_revision_config: { image_uri: 'registry.example.com/agent:other' } }),
    });
    expect(edited.status).toBe(200);
    await kubeRequest(h.access, { method: 'DELETE', path: `${AGD_PATH(h.ns)}/${deleted}` });
    await create(created);
    // The changes were in before the survivor could take over (the dead Lease expires 10 s after its
    // last renewal): each of them is the takeover's to find, not a watch event's.
    expect(history.liveAt(Date.now()).map((m) => m.identity)).toContain(victim);

    await eventually(
      async () => {
        const objects = new Map((await listObjects()).map((o) => [o.metadata.name, o]));
        const gone = !objects.has(deleted) && !h.sim.deployments().some((d) => d.id === idOf(deleted));
        const driftFixed = h.sim
          .requests({ method: 'PATCH' })
          .some((r) => r.at > killedAt && r.path.endsWith(`/${idOf(drifted)}`));
        return (
          gone &&
          driftFixed &&
          readyAt(objects.get(specChanged), 'registry.example.com/agent:2') &&
          readyAt(objects.get(drifted), IMAGE) &&
          readyAt(objects.get(created), IMAGE)
        );
      },
      'the survivor applied the spec change, reverted the drift, finished the deletion and created the new object',
      90_000,
    );

    const ids = new Map(h.sim.deployments().map((d) => [d.id, d.name]));
    for (const name of orphaned) ids.set(idOf(name), name);
    // The controller's writes (the test's own edit behind its back is not one).
    const writes = deploymentWrites(h.sim.requests(), h.ns, (id) => ids.get(id)).filter(
      (w) => w.at > killedAt && w.replica.startsWith('replica-'),
    );
    expect(violations(writes, history)).toEqual([]);
    const written = (name: string) => writes.filter((w) => w.key === keyOf(name));
    for (const name of [specChanged, drifted, deleted, created]) {
      expect(written(name).length, `${name} written after the takeover`).toBeGreaterThan(0);
      expect(written(name).every((w) => w.replica === survivor)).toBe(true);
    }
    // The unchanged objects it took over: no call wrote their deployments, and their objects were
    // not written either (their passes decided there was nothing to do).
    const unchanged = orphaned.filter((name) => ![specChanged, drifted, deleted].includes(name));
    expect(unchanged.flatMap(written)).toEqual([]);
    const after = new Map((await listObjects()).map((o) => [o.metadata.name, o]));
    expect(
      unchanged.filter(
        (name) => after.get(name)?.metadata.resourceVersion !== before.get(name)?.metadata.resourceVersion,
      ),
    ).toEqual([]);
  }, 300_000);
});
