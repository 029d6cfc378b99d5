/**
 * Post-deploy verification end to end: the real API server, the operator in-process with its webhook
 * receiver, the simulator serving each deployment's agent server. Each test asserts on the simulator's
 * request log, its webhook deliveries and the object's status.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { freePorts } from '../src/localcluster/ports.ts';
import { OPERATOR_KEY_SECRET } from '../src/runtime/operator-key.ts';
import { DEFAULT_API_KEY } from '../src/simulator/index.ts';
import { deriveRunToken } from '../src/webhooks/token.ts';
import { repoHost } from './support/agd-objects.ts';
import {
  condition,
  createAgd,
  eventually,
  getAgd,
  type Harness,
  listEvents,
  mergePatchAgd,
  sleep,
  startHarness,
} from './support/harness.ts';

const agent = (name: string, verification: Record<string, unknown>) => repoHost(name, { verification });

let h: Harness;
let receiverUrl: string;

beforeAll(async () => {
  const [port] = await freePorts(1);
  receiverUrl = `http://127.0.0.1:${port}`;
  h = await startHarness('verify', {
    env: { WEBHOOK_PORT: String(port), WEBHOOK_BASE_URL: receiverUrl, VERIFICATION_BACKOFF: '300ms' },
  });
});

afterAll(async () => {
  await h?.stop();
});

const deploymentOf = (name: string) => {
  const d = h.sim.deployments().find((x) => x.name === name);
  if (!d) throw new Error(`no deployment ${name}`);
  return d;
};
const agentServerRequests = (name: string) => {
  const prefix = `/deployments/${deploymentOf(name).id}/`;
  return h.sim.requests().filter((r) => r.path.startsWith(prefix));
};
const route = (r: { method: string; route: string }) =>
  `${r.method} ${r.route.replace('/deployments/{deployment_id}', '')}`;

async function getThread(name: string, threadId: string) {
  const res = await request(`${deploymentOf(name).source_config.custom_url}/threads/${threadId}`, {
    headers: { 'x-api-key': DEFAULT_API_KEY },
  });
  return (await res.body.json()) as { metadata: Record<string, unknown> };
}

/** Waits for `check` on the object, failing if Ready is ever True without a successful verification. */
async function watch(
  name: string,
  check: (obj: AgentDeployment) => boolean,
  what: string,
  timeoutMs?: number,
) {
  return eventually(
    async () => {
      const obj = await getAgd(h, name);
      if (condition(obj, 'Ready')?.status === 'True') {
        expect(obj.status?.verification?.last?.outcome, 'Ready before verification').toBe('Succeeded');
      }
      return check(obj) ? obj : undefined;
    },
    what,
    timeoutMs,
  );
}

const isReady = (obj: AgentDeployment) =>
  condition(obj, 'Ready')?.status === 'True' && obj.status?.observedGeneration === obj.metadata.generation;

describe('verification by join', () => {
  it('goes Ready only after the smoke run succeeds', async () => {
    await createAgd(h, agent('verified', { assistantId: 'agent', webhook: false }));
    const obj = await watch('verified', isReady, 'verified Ready');

    const calls = agentServerRequests('verified').map(route);
    const order = [
      'GET /ok',
      'POST /threads',
      'POST /threads/{thread_id}/runs',
      'GET /threads/{thread_id}/runs/{run_id}/join',
      'GET /threads/{thread_id}/runs/{run_id}',
    ];
    expect(calls.slice(0, order.length)).toEqual(order);
    expect(agentServerRequests('verified').every((r) => r.status >= 200 && r.status < 300)).toBe(true);

    const v = obj.status?.verification;
    expect(v).toMatchObject({
      revisionId: obj.status?.latestRevisionId,
      failures: 0,
      last: { outcome: 'Succeeded', runStatus: 'success', completedBy: 'join' },
    });
    expect(v?.current).toBeUndefined();
    expect(v?.last?.duration).toMatch(/^[\d.]+s$/);
    expect(v?.nextVerificationAt).toBeDefined();
    expect(condition(obj, 'Verified')).toMatchObject({ status: 'True', reason: 'Succeeded' });

    // The run ran before Ready turned True.
    const runPost = h.sim
      .requests({ method: 'POST' })
      .find(
        (r) => route(r) === 'POST /threads/{thread_id}/runs' && r.path.includes(deploymentOf('verified').id),
      );
    const readySince = Date.parse(condition(obj, 'Ready')?.lastTransitionTime ?? '');
    expect(readySince).toBeGreaterThanOrEqual(runPost?.at ?? Number.POSITIVE_INFINITY);

    // The thread is marked as the operator's.
    const thread = await getThread('verified', v?.last?.threadId ?? '');
    expect(thread.metadata).toMatchObject({
      created_by: 'agent-deployment-operator',
      agentdeployment: `${h.ns}/verified`,
    });
    expect((await listEvents(h, 'verified')).map((e) => e.reason)).toContain('Verified');
  });

  it('starts over on a new revision', async () => {
    const before = await getAgd(h, 'verified');
    const firstRun = before.status?.verification?.last?.runId;
    await mergePatchAgd(h, 'verified', { spec: { sourceRevisionConfig: { repoRef: 'release' } } });
    const after = await watch(
      'verified',
      (o) =>
        isReady(o) &&
        o.status?.verification?.revisionId === o.status?.latestRevisionId &&
        o.status?.latestRevisionId !== before.status?.latestRevisionId,
      'verified Ready on the new revision',
    );
    expect(after.status?.verification?.last?.runId).not.toBe(firstRun);
    expect(after.status?.verification?.last?.outcome).toBe('Succeeded');
  });

  it.each([
    [
      { assistantId: 'agent', timeout: 'soon' },
      'spec.verification.timeout must be a duration such as 30s, 5m or 1h',
    ],
    [{ assistantId: 'agent', timeout: '2h' }, 'spec.verification.timeout must be between 1s and 1h'],
    [{ assistantId: 'agent', interval: '500ms' }, 'spec.verification.interval must be between 1s and 720h'],
    [{ timeout: '30s' }, 'assistantId'],
  ])('refuses a bad verification spec at admission: %j', async (verification, message) => {
    await expect(
      createAgd(h, agent(`bad-${Math.random().toString(36).slice(2, 8)}`, verification)),
    ).rejects.toThrow(message);
  });

  it('keeps a deployment whose graph errors not Ready, retries with backoff, and recovers', async () => {
    h.sim.configureAgentServer('failing', { graph: { fail: true, errorMessage: 'the graph broke' } });
    await createAgd(h, agent('failing', { assistantId: 'agent', webhook: false }));
    const obj = await watch(
      'failing',
      (o) => (o.status?.verification?.failures ?? 0) >= 3 && !o.status?.verification?.current,
      'failing to fail three times',
    );
    expect(condition(obj, 'Ready')).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    expect(condition(obj, 'Ready')?.message).toContain('ended error: ValueError: the graph broke');
    expect(condition(obj, 'Verified')).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    expect(condition(obj, 'Stalled')).toBeUndefined();
    expect(obj.status?.verification?.last).toMatchObject({ outcome: 'Failed', runStatus: 'error' });

    // One run per attempt, each wait longer than the one before: backoff, not a hot loop.
    const runs = agentServerRequests('failing')
      .filter((r) => route(r) === 'POST /threads/{thread_id}/runs')
      .map((r) => r.at);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.length).toBeLessThanOrEqual((obj.status?.verification?.failures ?? 0) + 1);
    const gaps = runs.slice(1).map((t, i) => t - (runs[i] as number));
    expect(gaps[1]).toBeGreaterThan(gaps[0] as number);

    h.sim.configureAgentServer('failing', { graph: { fail: false } });
    const recovered = await watch('failing', isReady, 'failing to recover');
    expect(recovered.status?.verification).toMatchObject({ failures: 0, last: { outcome: 'Succeeded' } });
  });
});

describe('verification by webhook', () => {
  const deliver = (name: string, token: string | undefined, body: unknown, method = 'POST') =>
    request(`${receiverUrl}/webhooks/runs/${h.ns}/${name}${token === undefined ? '' : `?token=${token}`}`, {
      method: method as 'POST',
      headers: { 'content-type': 'application/json' },
      body: method === 'POST' ? JSON.stringify(body) : undefined,
    }).then(async (res) => ({ status: res.statusCode, text: await res.body.text() }));

  /** The token of the object's run on `threadId` (default: the run in flight, else the last one). */
  async function tokenOf(name: string, threadId?: string): Promise<string> {
    const secret = (await kubeRequest(h.access, {
      method: 'GET',
      path: `/api/v1/namespaces/${h.ns}/secrets/${OPERATOR_KEY_SECRET}`,
    })) as { data: { key: string } };
    const obj = await getAgd(h, name);
    const thread =
      threadId ??
      obj.status?.verification?.current?.threadId ??
      obj.status?.verification?.last?.threadId ??
      '';
    return deriveRunToken(Buffer.from(secret.data.key, 'base64'), obj.metadata.uid ?? '', thread);
  }

  it('completes the verification when the run reports through the webhook', async () => {
    // Two nodes of 1.5 s each: the run is still going when the first pass ends.
    h.sim.configureAgentServer('hooked', { graph: { delayMs: 1_500 } });
    await createAgd(h, agent('hooked', { assistantId: 'agent', timeout: '2m' }));
    const obj = await watch('hooked', isReady, 'hooked Ready');
    expect(obj.status?.verification?.last).toMatchObject({
      outcome: 'Succeeded',
      runStatus: 'success',
      completedBy: 'webhook',
    });
    const calls = agentServerRequests('hooked').map(route);
    expect(calls).not.toContain('GET /threads/{thread_id}/runs/{run_id}/join');
    const deliveries = h.sim.webhookDeliveries('hooked');
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      outcome: 'delivered',
      status: 202,
      run_id: obj.status?.verification?.last?.runId,
    });
    expect(deliveries[0]?.url.startsWith(`${receiverUrl}/webhooks/runs/${h.ns}/hooked?token=`)).toBe(true);
    // The token never reaches a log line.
    const token = await tokenOf('hooked');
    expect(h.logs.filter((l) => l.includes(token))).toEqual([]);
  });

  it('refuses a missing or wrong token with the same answer as an unknown object and changes nothing; the run token completes the run', async () => {
    h.sim.configureAgentServer('guarded', { graph: { delayMs: 600_000 } });
    await createAgd(h, agent('guarded', { assistantId: 'agent', timeout: '10m' }));
    const running = await watch('guarded', (o) => !!o.status?.verification?.current, 'guarded run started');
    const current = running.status?.verification?.current;
    const forged = {
      run_id: current?.runId,
      thread_id: current?.threadId,
      status: 'success',
      marker: 'echo-me',
    };

    const otherToken = await tokenOf('hooked');
    const otherRun = await tokenOf('guarded', 'another-thread');
    const good = await tokenOf('guarded');
    const unknown = await deliver('no-such-object', good, forged);
    expect(unknown.status).toBe(404);
    // Wrong tokens get exactly the unknown object's answer: nothing tells which objects exist.
    for (const token of [undefined, '', '0'.repeat(64), otherToken, `${otherToken}0`, otherRun]) {
      const res = await deliver('guarded', token, forged);
      expect(res).toEqual(unknown);
      expect(res.text).not.toContain('echo-me');
    }
    // The finished run of another object: its token is no longer valid anywhere.
    expect(await deliver('hooked', otherToken, forged)).toEqual(unknown);
    expect((await deliver('guarded', good, forged, 'GET')).status).toBe(405);
    expect((await deliver('guarded', good, { ...forged, run_id: 'another-run' })).status).toBe(404);
    expect((await deliver('guarded', good, { nothing: true })).status).toBe(400);

    await sleep(1_500);
    const after = await getAgd(h, 'guarded');
    expect(after.status?.verification?.current).toEqual(current);
    expect(after.status?.verification?.last).toBeUndefined();
    expect(condition(after, 'Ready')?.status).toBe('False');

    const accepted = await deliver('guarded', good, forged);
    expect(accepted.status).toBe(202);
    expect(accepted.text).not.toContain('echo-me');
    const done = await watch('guarded', isReady, 'guarded Ready');
    expect(done.status?.verification?.last).toMatchObject({ runId: current?.runId, completedBy: 'webhook' });
    expect(h.logs.filter((l) => l.includes(good))).toEqual([]);
  });
});
