/**
 * A control plane that fails: 500/503 and dropped connections for a stretch, 429 with Retry-After, and
 * malformed bodies. The operator backs off (a bounded number of calls, no hot loop), says what is
 * happening in conditions, keeps reconciling other objects, and converges once the faults are cleared.
 */
import { Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { ControlPlaneClient } from '../src/controlplane/client.ts';
import type { Condition } from '../src/runtime/conditions.ts';
import { DEFAULT_API_KEY, defaultListeners, type FaultRule } from '../src/simulator/index.ts';
import {
  AGD_PATH,
  condition,
  createAgd,
  eventually,
  getAgd,
  type Harness,
  mergePatchAgd,
  sleep,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { kubeConfigFromProvided } from './support/kube.ts';

const LISTENER = defaultListeners()[0]?.id as string;
const image = (version: number) => `registry.example.com/agent:${version}`;
const externalImage = (name: string, annotations: Record<string, string> = {}) => ({
  metadata: { name, annotations },
  spec: {
    source: 'external_image',
    sourceConfig: { listenerId: LISTENER },
    sourceRevisionConfig: { imageUri: image(1) },
  },
});
const changeImage = (h: Harness, name: string, version: number) =>
  mergePatchAgd(h, name, { spec: { sourceRevisionConfig: { imageUri: image(version) } } });

/** Ready on the given image, with a current observedGeneration. */
async function readyOn(h: Harness, name: string, version: number): Promise<AgentDeployment> {
  return eventually(
    async () => {
      const obj = await waitReady(h, name, 30_000);
      return obj.status?.imageVersion === image(version) ? obj : undefined;
    },
    `${name} Ready on ${image(version)}`,
  );
}

/** The object once its Reconciling condition has the reason. */
function reconcilingWith(h: Harness, name: string, reason: string): Promise<AgentDeployment> {
  return eventually(async () => {
    const obj = await getAgd(h, name);
    return condition(obj, 'Reconciling')?.reason === reason ? obj : undefined;
  }, `${name} Reconciling ${reason}`);
}

/** Records every Reconciling condition one object shows, so conditions that last a moment are seen. */
async function recordReconciling(h: Harness, name: string) {
  const seen: Condition[] = [];
  const abort = await new Watch(kubeConfigFromProvided()).watch(
    AGD_PATH(h.ns),
    { fieldSelector: `metadata.name=${name}` },
    (_phase, obj: AgentDeployment) => {
      const c = condition(obj, 'Reconciling');
      if (c) seen.push(c as Condition);
    },
    () => {},
  );
  return {
    stop: () => {
      abort.abort();
      return seen;
    },
  };
}

/**
 * Calls a failing object may make in `ms` when it backs off exponentially from 1 s: a pass right away,
 * one already scheduled by the poll, and one per doubling; each pass makes up to 3 attempts (a GET is
 * retried twice). A hot loop makes hundreds; a fixed 1 s requeue without backoff already exceeds this.
 */
const backedOffCallsPerObject = (ms: number) => 3 * (Math.floor(Math.log2(ms / 1_000 + 1)) + 2);

describe('a control plane that fails for a stretch', () => {
  const STRETCH_MS = 8_000;

  it.each<[string, FaultRule, RegExp]>([
    ['HTTP 500', { status: 500 }, /control plane unavailable: HTTP 500/],
    ['HTTP 503', { status: 503 }, /control plane unavailable: HTTP 503/],
    ['dropped connections', { dropConnection: true }, /control plane unavailable: .*connection/],
  ])('%s: backs off, says so in conditions, and converges after', async (_what, fault, message) => {
    const h = await startHarness('faults-cp');
    try {
      await createAgd(h, externalImage('existing'));
      const ready = await readyOn(h, 'existing', 1);
      const id = ready.status?.deploymentId as string;

      const from = Date.now();
      const remove = h.sim.addFault(fault);
      await changeImage(h, 'existing', 2);
      await createAgd(h, externalImage('newcomer'));

      const existing = await reconcilingWith(h, 'existing', 'ControlPlaneUnavailable');
      expect(condition(existing, 'Reconciling')).toMatchObject({ status: 'True', message });
      expect(condition(existing, 'Ready')?.status).toBe('True'); // the last observation still holds
      const newcomer = await reconcilingWith(h, 'newcomer', 'ControlPlaneUnavailable');
      expect(condition(newcomer, 'Reconciling')).toMatchObject({ status: 'True', message });
      expect(condition(newcomer, 'Ready')?.status).toBe('Unknown'); // nothing observed yet

      await sleep(from + STRETCH_MS - Date.now());
      remove();
      const during = h.sim.requests().filter((r) => r.at >= from && r.at < from + STRETCH_MS);
      const ofExisting = during.filter((r) => r.path.includes(id));
      const ofNewcomer = during.filter(
        (r) => r.query.name_contains === 'newcomer' || (r.body as { name?: string })?.name === 'newcomer',
      );
      const perObject = backedOffCallsPerObject(STRETCH_MS);
      expect(ofExisting.length).toBeLessThanOrEqual(perObject);
      expect(ofNewcomer.length).toBeLessThanOrEqual(perObject);
      // Everything else (batched observation, at most 3 attempts a second) stays bounded as well.
      expect(during.length).toBeLessThanOrEqual(2 * perObject + 3 * (STRETCH_MS / 1_000));

      await readyOn(h, 'existing', 2);
      await readyOn(h, 'newcomer', 1);
      expect(h.sim.deployments().filter((d) => d.name === 'newcomer')).toHaveLength(1);
      expect(condition(await getAgd(h, 'existing'), 'Reconciling')).toBeUndefined();
    } finally {
      await h.stop();
    }
  });

  it('HTTP 429 with Retry-After: no call on that credential before the time it asked', async () => {
    // Longer than the client's in-call retry ceiling (5 s), so a failed pass ends and is requeued.
    const RETRY_AFTER_MS = 6_000;
    const LIMITED_MS = 10_000;
    const h = await startHarness('faults-cp-429');
    try {
      await createAgd(h, externalImage('limited'));
      await readyOn(h, 'limited', 1);

      const from = Date.now();
      const remove = h.sim.addFault({ status: 429, retryAfterSeconds: RETRY_AFTER_MS / 1_000 });
      await changeImage(h, 'limited', 2);
      const limited = await reconcilingWith(h, 'limited', 'ControlPlaneUnavailable');
      expect(condition(limited, 'Reconciling')?.message).toMatch(/rate limited \(429\)/);
      await sleep(from + LIMITED_MS - Date.now());
      remove();

      // One object, so every call after a 429 is a new one (100 ms allow for one already on the wire).
      const during = h.sim.requests().filter((r) => r.at >= from && r.at < from + LIMITED_MS);
      const early = during.flatMap((limitedBy) =>
        limitedBy.status !== 429
          ? []
          : during
              .filter((r) => r.at > limitedBy.at + 100 && r.at < limitedBy.at + RETRY_AFTER_MS)
              .map((r) => `${r.method} ${r.path} ${r.at - limitedBy.at} ms after a 429`),
      );
      expect(early).toEqual([]);
      expect(during.length).toBeLessThanOrEqual(backedOffCallsPerObject(LIMITED_MS));

      await readyOn(h, 'limited', 2);
    } finally {
      await h.stop();
    }
  });
});

describe('malformed control-plane responses', () => {
  type Kind = NonNullable<FaultRule['malformed']>;
  /** What the message must say about the body, after the operation and the status. */
  const about: Record<Kind, RegExp> = {
    'not-json': /the body is not JSON/,
    'missing-fields': /the body does not have the expected fields: .*\b(id|resources) \(invalid_type\)/,
    'wrong-types': /the body does not have the expected fields: .*\b(id|resources) \(invalid_type\)/,
  };
  const kinds = Object.keys(about) as Kind[];

  let h: Harness;
  let client: ControlPlaneClient;
  beforeAll(async () => {
    h = await startHarness('faults-malformed');
    client = new ControlPlaneClient({ credentials: { baseUrl: h.sim.url, apiKey: DEFAULT_API_KEY } });
  });
  afterAll(async () => {
    await client?.close();
    await h?.stop();
  });

  it.each(kinds)('%s on GET deployment: MalformedResponse, others still reconciled', async (kind) => {
    const victim = `get-${kind}`;
    await createAgd(h, externalImage(victim));
    const id = (await readyOn(h, victim, 1)).status?.deploymentId as string;

    // The deployment's own GET, and the listing a batched observation would use instead.
    const removers = [
      h.sim.addFault({ method: 'GET', route: `/v2/deployments/${id}`, malformed: kind }),
      h.sim.addFault({ method: 'GET', route: '/v2/deployments', malformed: kind }),
    ];
    await sleep(1_600); // older than any snapshot a batched observation may still trust
    await changeImage(h, victim, 2);

    // Another object goes on meanwhile (adopted by id, so the spoiled listing is not in its way).
    const bystander = `bystander-${kind}`;
    const existing = await client.createDeployment({
      name: bystander,
      source: 'external_image',
      source_config: { listener_id: LISTENER },
      source_revision_config: { image_uri: image(1) },
      secrets: [],
    });
    await createAgd(h, externalImage(bystander, { 'deploy.agents.dev/adopt-deployment-id': existing.id }));
    await readyOn(h, bystander, 1);

    const failing = await reconcilingWith(h, victim, 'MalformedResponse');
    const message = condition(failing, 'Reconciling')?.message ?? '';
    expect(message).toMatch(/^(getDeployment|listDeployments): malformed response \(200\)/);
    expect(message).toMatch(about[kind]);
    expect(condition(failing, 'Ready')?.status).toBe('True');

    for (const remove of removers) remove();
    await readyOn(h, victim, 2);
  });

  it.each(kinds)('%s on POST: MalformedResponse, then found by name, created once', async (kind) => {
    const name = `post-${kind}`;
    const remove = h.sim.addFault({ method: 'POST', route: '/v2/deployments', malformed: kind, times: 1 });
    const recorder = await recordReconciling(h, name);
    await createAgd(h, externalImage(name));
    const ready = await readyOn(h, name, 1);
    remove();
    const seen = recorder.stop();

    const malformed = seen.find((c) => c.reason === 'MalformedResponse');
    expect(malformed?.message).toMatch(/^createDeployment: malformed response \(201\)/);
    expect(malformed?.message).toMatch(about[kind]);
    // The spoiled answer still created the deployment: it is found by name, never created twice.
    const own = h.sim.deployments().filter((d) => d.name === name);
    expect(own.map((d) => d.id)).toEqual([ready.status?.deploymentId]);
    const posts = h.sim
      .requests({ method: 'POST', route: '/v2/deployments' })
      .filter((r) => (r.body as { name?: string })?.name === name);
    expect(posts).toHaveLength(1);
  });
});
