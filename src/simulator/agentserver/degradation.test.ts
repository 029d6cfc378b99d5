/**
 * A deployment's agent server degrades after N runs (`graph.degradeAfterRuns`) or answers slowly
 * (`graph.slowMs`), per deployment or per revision source; a reset starts the count over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentServerConfig, Simulator } from '../index.ts';
import { call } from '../test-support.ts';
import { type AgentDeployment, deploy, human, startSim } from './test-support.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim.close();
});

const admin = (method: string, path: string, body?: unknown) =>
  call(sim, method, `/_simulator${path}`, { auth: false, ...(body === undefined ? {} : { body }) });

interface Outcome {
  run: string;
  thread: string;
}

/** One run on a thread of its own, joined: the run's and the thread's final status. */
async function runOnce(agent: AgentDeployment): Promise<Outcome> {
  const thread = ((await agent.call('POST', '/threads', {})).body as { thread_id: string }).thread_id;
  const created = await agent.call('POST', `/threads/${thread}/runs`, {
    assistant_id: 'agent',
    input: human('hi'),
  });
  const runId = (created.body as { run_id: string }).run_id;
  await agent.call('GET', `/threads/${thread}/runs/${runId}/join`);
  const run = (await agent.call('GET', `/threads/${thread}/runs/${runId}`)).body as { status: string };
  const state = (await agent.call('GET', `/threads/${thread}`)).body as { status: string };
  return { run: run.status, thread: state.status };
}

async function statuses(agent: AgentDeployment, runs: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < runs; i++) seen.push((await runOnce(agent)).thread);
  return seen;
}

describe('degradeAfterRuns', () => {
  it.each<[string, AgentServerConfig, string[]]>([
    ['no degradation', {}, ['idle', 'idle', 'idle', 'idle']],
    ['after 2 runs', { graph: { degradeAfterRuns: 2 } }, ['idle', 'idle', 'error', 'error']],
    ['after 0 runs', { graph: { degradeAfterRuns: 0 } }, ['error', 'error', 'error', 'error']],
    [
      'fail wins over the count',
      { graph: { fail: true, degradeAfterRuns: 3 } },
      ['error', 'error', 'error', 'error'],
    ],
  ])('%s: the threads of four runs end as expected', async (_name, config, expected) => {
    expect(await statuses(await deploy(sim, config), 4)).toStrictEqual(expected);
  });

  it('a degraded run ends in error as a graph failure does: run and thread error, join __error__', async () => {
    const agent = await deploy(sim, { graph: { degradeAfterRuns: 0, errorMessage: 'degraded' } });
    expect(await runOnce(agent)).toStrictEqual({ run: 'error', thread: 'error' });
    const waited = await agent.call('POST', '/runs/wait', { assistant_id: 'agent', input: human('x') });
    expect(waited.body).toStrictEqual({ __error__: { error: 'ValueError', message: 'degraded' } });
  });

  it('counts stateless runs too, and GET shows the count', async () => {
    const agent = await deploy(sim, { graph: { degradeAfterRuns: 1 } });
    const wait = async () =>
      (await agent.call('POST', '/runs/wait', { assistant_id: 'agent', input: human('x') })).body;
    expect(await wait()).not.toHaveProperty('__error__');
    expect(await wait()).toHaveProperty('__error__');
    expect((await admin('GET', `/agent-servers/${agent.id}`)).body).toMatchObject({ runs_started: 2 });
  });

  it('POST /reset starts the count over; a new configuration (PUT) does too', async () => {
    const agent = await deploy(sim, { graph: { degradeAfterRuns: 1 } });
    expect(await statuses(agent, 2)).toStrictEqual(['idle', 'error']);
    expect((await admin('POST', `/agent-servers/${agent.id}/reset`)).status).toBe(204);
    expect((await admin('GET', `/agent-servers/${agent.id}`)).body).toMatchObject({ runs_started: 0 });
    expect(await statuses(agent, 2)).toStrictEqual(['idle', 'error']);

    expect(
      (await admin('PUT', `/agent-servers/${agent.id}`, { graph: { degradeAfterRuns: 2 } })).status,
    ).toBe(204);
    expect(await statuses(agent, 3)).toStrictEqual(['idle', 'idle', 'error']);
    expect((await admin('POST', '/agent-servers/never-heard-of/reset')).status).toBe(404);
  });

  it.each([
    ['a negative count', { graph: { degradeAfterRuns: -1 } }],
    ['a fractional count', { graph: { degradeAfterRuns: 1.5 } }],
    ['a negative slowMs', { graph: { slowMs: -1 } }],
    ['a slowMs that is not a number', { graph: { slowMs: '10' } }],
  ])('PUT refuses %s (422)', async (_name, body) => {
    const agent = await deploy(sim);
    expect((await admin('PUT', `/agent-servers/${agent.id}`, body)).status).toBe(422);
  });
});

describe('degradation per revision source', () => {
  it('a revision made from a degrading source degrades; the next revision counts anew', async () => {
    const agent = await deploy(sim);
    const activeRevision = () => sim.deployments().find((d) => d.id === agent.id)?.active_revision_id;
    const pushAndServe = async (commit: string) => {
      const before = activeRevision();
      expect(sim.pushToRepository(agent.id, commit)).toBe(true);
      await expect.poll(activeRevision, { timeout: 5_000 }).not.toBe(before);
    };
    const degrading = 'c0ffee0000000000000000000000000000000001';
    sim.configureRevisionAgent(degrading, { graph: { degradeAfterRuns: 1 } });

    await pushAndServe(degrading);
    expect(await statuses(agent, 2)).toStrictEqual(['idle', 'error']);
    await pushAndServe('c0ffee0000000000000000000000000000000002');
    expect(await statuses(agent, 2)).toStrictEqual(['idle', 'idle']);
    await pushAndServe(degrading);
    expect(await statuses(agent, 2)).toStrictEqual(['idle', 'error']);
  });
});

describe('slowMs', () => {
  it('a slow run is still running, with nothing written past its input, until slowMs has passed', async () => {
    const agent = await deploy(sim, { graph: { slowMs: 600_000 } });
    const thread = ((await agent.call('POST', '/threads', {})).body as { thread_id: string }).thread_id;
    const run = (
      await agent.call('POST', `/threads/${thread}/runs`, { assistant_id: 'agent', input: human('slow') })
    ).body as { run_id: string };
    await expect
      .poll(
        async () =>
          ((await agent.call('GET', `/threads/${thread}/runs/${run.run_id}`)).body as { status: string })
            .status,
      )
      .toBe('running');
    const state = (await agent.call('GET', `/threads/${thread}/state`)).body as { next: string[] };
    expect(state.next).toStrictEqual(['echo']);
    await agent.call('POST', `/threads/${thread}/runs/${run.run_id}/cancel`);
  });

  it('a run slower than the server run timeout ends in timeout', async () => {
    const agent = await deploy(sim, { graph: { slowMs: 600_000 }, runTimeoutMs: 20 });
    expect(await runOnce(agent)).toStrictEqual({ run: 'timeout', thread: 'error' });
  });

  it('slowMs 0 answers as before', async () => {
    const agent = await deploy(sim, { graph: { slowMs: 0 } });
    expect(await runOnce(agent)).toStrictEqual({ run: 'success', thread: 'idle' });
  });
});
