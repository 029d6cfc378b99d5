/**
 * A controller started again beside objects that converged under an earlier one: it reads their
 * deployments through the batched listing (100 ids a call), not one GET each, writes nothing for the
 * objects that did not change, and fixes the drift made while it was down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { DEFAULT_API_KEY, defaultListeners } from '../src/simulator/index.ts';
import { AGD_PATH, condition, createAgd, eventually, type Harness, startHarness } from './support/harness.ts';

/** Above 100, so the listing takes more than one call. */
const OBJECTS = 120;
const LISTENER = defaultListeners()[0]?.id as string;
const IMAGE = 'registry.example.com/agent:1';
const names = Array.from({ length: OBJECTS }, (_, i) => `restart-${String(i).padStart(3, '0')}`);
const drifted = [names[7] as string, names[110] as string];

let h: Harness;
beforeAll(async () => {
  h = await startHarness('restart-batched', { withOperator: false, simulator: { revisionStepMs: 20 } });
});
afterAll(() => h?.stop());

const listObjects = async () =>
  ((await kubeRequest(h.access, { method: 'GET', path: AGD_PATH(h.ns) })) as { items: AgentDeployment[] })
    .items;

const converged = (obj: AgentDeployment) =>
  condition(obj, 'Ready')?.status === 'True' &&
  obj.status?.observedGeneration === obj.metadata.generation &&
  obj.status?.imageVersion === IMAGE;

/** name -> resourceVersion of each Event in the namespace, and the object it is about. */
async function eventVersions(): Promise<Map<string, { version: string; about: string }>> {
  const list = (await kubeRequest(h.access, {
    method: 'GET',
    path: `/api/v1/namespaces/${h.ns}/events`,
  })) as {
    items: Array<{ metadata: { name: string; resourceVersion: string }; involvedObject: { name: string } }>;
  };
  return new Map(
    list.items.map((e) => [
      e.metadata.name,
      { version: e.metadata.resourceVersion, about: e.involvedObject.name },
    ]),
  );
}

/** A series of the operator's /metrics, summed over the label sets that contain `labels`. */
async function metric(port: number, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('a restart beside converged objects', () => {
  it('lists their deployments in batches, writes nothing for the unchanged, and fixes the drift', async () => {
    const first = await h.startOperator();
    await Promise.all(
      names.map((name) =>
        createAgd(h, {
          metadata: { name },
          spec: {
            source: 'external_image',
            sourceConfig: { listenerId: LISTENER, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
            sourceRevisionConfig: { imageUri: IMAGE },
          },
        }),
      ),
    );
    await eventually(
      async () => (await listObjects()).filter(converged).length === OBJECTS,
      `all ${OBJECTS} Ready`,
      90_000,
    );
    await first.stop(1_000);

    // While it is down, two deployments are changed behind its back.
    const before = await listObjects();
    const idOf = new Map(before.map((o) => [o.metadata.name, o.status?.deploymentId as string]));
    for (const name of drifted) {
      const res = await fetch(`${h.sim.url}/v2/deployments/${idOf.get(name)}`, {
        method: 'PATCH',
        headers: { 'X-Api-Key': DEFAULT_API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ source_revision_config: { image_uri: 'registry.example.com/agent:other' } }),
      });
      expect(res.status).toBe(200);
    }
    const versionsBefore = new Map(before.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    const eventsBefore = await eventVersions();
    h.sim.resetRequests();

    const second = await h.startOperator();
    // The drift is fixed: a new revision with the object's image, Ready again.
    await eventually(
      async () => {
        const objects = await listObjects();
        return drifted.every((name) => {
          const obj = objects.find((o) => o.metadata.name === name);
          return obj && converged(obj) && obj.metadata.resourceVersion !== versionsBefore.get(name);
        });
      },
      'the drifted objects patched back and Ready',
      60_000,
    );
    // Every object had its first pass: each was queued once at start, and the queue is empty again.
    await eventually(
      async () =>
        (await metric(
          second.httpPort,
          'controller_runtime_reconcile_total',
          'controller="agentdeployment"',
        )) >= OBJECTS &&
        (await metric(second.httpPort, 'workqueue_depth', 'name="agentdeployment"')) === 0 &&
        (await metric(
          second.httpPort,
          'controller_runtime_active_workers',
          'controller="agentdeployment"',
        )) === 0,
      'every object passed once and the queue drained',
    );

    const driftedIds = new Set(drifted.map((name) => idOf.get(name)));
    const calls = h.sim.requests();
    const perObjectGets = calls.filter(
      (r) => r.method === 'GET' && r.route === '/v2/deployments/{deployment_id}',
    );
    expect(perObjectGets.filter((r) => !driftedIds.has(r.path.split('/')[3]))).toEqual([]);
    const lists = calls.filter((r) => r.method === 'GET' && r.route === '/v2/deployments');
    // The first listing covers all, ceil(120/100) calls; the regular polls that follow cost the same.
    expect(lists.length).toBeGreaterThanOrEqual(2);
    expect(lists.every((r) => r.query.deployment_ids !== undefined)).toBe(true);
    expect(calls.filter((r) => r.method === 'POST' || r.method === 'DELETE')).toEqual([]);
    expect(calls.filter((r) => r.method === 'PATCH').map((r) => r.path.split('/')[3])).toEqual(
      expect.arrayContaining([...driftedIds]),
    );
    expect(calls.filter((r) => r.method === 'PATCH')).toHaveLength(drifted.length);

    // Kubernetes: no write to an unchanged object, and no Event about one.
    const after = await listObjects();
    const rewritten = after
      .filter((o) => !drifted.includes(o.metadata.name))
      .filter((o) => o.metadata.resourceVersion !== versionsBefore.get(o.metadata.name))
      .map((o) => o.metadata.name);
    expect(rewritten).toEqual([]);
    const eventsAfter = await eventVersions();
    const newEvents = [...eventsAfter]
      .filter(([name, e]) => eventsBefore.get(name)?.version !== e.version)
      .map(([, e]) => e.about);
    expect(newEvents.filter((about) => !drifted.includes(about))).toEqual([]);
  });
});
