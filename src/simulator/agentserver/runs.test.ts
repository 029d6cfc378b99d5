import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../index.ts';
import { API_KEY } from '../test-support.ts';
import { type AgentDeployment, deploy, human, startSim } from './test-support.ts';

interface Run {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  status: string;
  created_at: string;
  kwargs: { input: unknown; config: { configurable: Record<string, unknown> }; metadata: unknown };
  multitask_strategy: string;
}
interface Values {
  messages?: Array<{ type: string; content: string; id: string }>;
  turns?: number;
}

/** A run that writes its echo at once and then holds its tally for ten minutes. */
const HOLD = { configurable: { delay_ms_by_node: { echo: 0, tally: 600_000 } } };

let sim: Simulator;
let agent: AgentDeployment;
beforeAll(async () => {
  sim = await startSim();
  agent = await deploy(sim);
});
afterAll(async () => {
  await sim.close();
});

const newThread = async (deployment = agent) =>
  ((await deployment.call('POST', '/threads', {})).body as { thread_id: string }).thread_id;

async function createRun(threadId: string, body: Record<string, unknown>, deployment = agent): Promise<Run> {
  const answer = await deployment.call('POST', `/threads/${threadId}/runs`, {
    assistant_id: 'agent',
    ...body,
  });
  expect(answer.status).toBe(200);
  return answer.body as Run;
}

const getRun = async (threadId: string, runId: string) =>
  (await agent.call('GET', `/threads/${threadId}/runs/${runId}`)).body as Run;
const stateOf = async (threadId: string) =>
  ((await agent.call('GET', `/threads/${threadId}/state`)).body as { values: Values }).values;
const texts = (values: Values) => values.messages?.map((m) => m.content);

/** Waits until the held run has written its echo (its partial output). */
async function untilEchoed(threadId: string, text: string) {
  await expect.poll(async () => texts(await stateOf(threadId))).toContain(`echo: ${text}`);
}

describe('system endpoints and authentication', () => {
  it('GET /ok answers {"ok": true}; GET /info names the server version', async () => {
    expect(await agent.call('GET', '/ok')).toMatchObject({ status: 200, body: { ok: true } });
    const info = await agent.call('GET', '/info');
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ version: expect.any(String) });
  });

  it.each([
    ['no X-Api-Key', {}, 401],
    ['a wrong X-Api-Key', { 'X-Api-Key': 'wrong' }, 403],
  ])('refuses a request with %s', async (_name, headers, status) => {
    const response = await fetch(`${agent.url}/ok`, { headers });
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ detail: expect.any(String) });
  });

  it('answers 404 for a deployment that does not exist', async () => {
    const response = await fetch(`${sim.url}/deployments/00000000-0000-4000-8000-000000000000/ok`, {
      headers: { 'X-Api-Key': API_KEY },
    });
    expect(response.status).toBe(404);
  });

  it('records agent-server requests with their route template', async () => {
    sim.resetRequests();
    await agent.call('GET', '/ok');
    expect(sim.requests({ route: '/deployments/{deployment_id}/ok' })).toMatchObject([{ status: 200 }]);
  });
});

describe('assistants', () => {
  it('has a default assistant per graph with an empty config, found by metadata, limit and offset', async () => {
    const multi = await deploy(sim, { graphs: ['agent', 'planner'] });
    const all = (await multi.call('POST', '/assistants/search', {})).body as Array<Record<string, unknown>>;
    expect(all.map((a) => a.graph_id)).toStrictEqual(['agent', 'planner']);
    for (const assistant of all) {
      expect(assistant).toMatchObject({ assistant_id: expect.stringMatching(/^[0-9a-f-]{36}$/), config: {} });
    }
    const bySystem = await multi.call('POST', '/assistants/search', { metadata: { created_by: 'system' } });
    expect((bySystem.body as unknown[]).length).toBe(2);
    expect(
      (await multi.call('POST', '/assistants/search', { metadata: { created_by: 'me' } })).body,
    ).toStrictEqual([]);
    const page = (await multi.call('POST', '/assistants/search', { limit: 1, offset: 1 })).body as typeof all;
    expect(page.map((a) => a.graph_id)).toStrictEqual(['planner']);

    // A run may name the assistant by its uuid instead of the graph id.
    const thread = await newThread(multi);
    const run = await createRun(thread, { assistant_id: all[1]?.assistant_id, input: human('x') }, multi);
    expect(run.assistant_id).toBe(all[1]?.assistant_id);
    const joined = await multi.call('GET', `/threads/${thread}/runs/${run.run_id}/join`);
    expect(texts(joined.body as Values)).toStrictEqual(['x', 'echo: x']);
  });

  it('answers 404 for a run naming an unknown assistant', async () => {
    const answer = await agent.call('POST', `/threads/${await newThread()}/runs`, { assistant_id: 'nope' });
    expect(answer.status).toBe(404);
  });
});

describe('runs on a thread', () => {
  it('creates a run (pending or running), gets it, joins it (success) and lists it', async () => {
    const thread = await newThread();
    const created = await agent.call('POST', `/threads/${thread}/runs`, {
      assistant_id: 'agent',
      input: human('hello'),
      metadata: { by: 'test' },
    });
    expect(created.status).toBe(200);
    const run = created.body as Run;
    expect(['pending', 'running']).toContain(run.status);
    expect(run).toMatchObject({
      thread_id: thread,
      multitask_strategy: 'enqueue',
      kwargs: { metadata: { by: 'test' } },
    });
    expect(created.headers.get('content-location')).toBe(`/threads/${thread}/runs/${run.run_id}`);

    const joined = await agent.call('GET', `/threads/${thread}/runs/${run.run_id}/join`);
    expect(joined.status).toBe(200);
    expect(texts(joined.body as Values)).toStrictEqual(['hello', 'echo: hello']);
    expect(await getRun(thread, run.run_id)).toMatchObject({ status: 'success' });
    expect((await agent.call('GET', `/threads/${thread}`)).body).toMatchObject({
      status: 'idle',
      metadata: { graph_id: 'agent' },
    });
    const listed = (await agent.call('GET', `/threads/${thread}/runs`)).body as Run[];
    expect(listed.map((r) => r.run_id)).toStrictEqual([run.run_id]);
    expect(
      (await agent.call('GET', `/threads/${thread}/runs/00000000-0000-4000-8000-000000000000`)).status,
    ).toBe(404);
  });

  it('builds messages in the Message shape from role/content input', async () => {
    const thread = await newThread();
    const answer = await agent.call('POST', `/threads/${thread}/runs/wait`, {
      assistant_id: 'agent',
      input: { messages: [{ role: 'human', content: 'shape' }] },
    });
    const [humanMessage, ai] = (answer.body as { messages: Array<Record<string, unknown>> }).messages;
    expect(Object.keys(humanMessage ?? {}).sort()).toStrictEqual(
      ['type', 'content', 'additional_kwargs', 'response_metadata', 'name', 'id', 'example'].sort(),
    );
    expect(ai).toMatchObject({
      type: 'ai',
      content: 'echo: shape',
      additional_kwargs: {},
      response_metadata: {},
      name: null,
      id: expect.any(String),
      example: false,
      tool_calls: [],
      invalid_tool_calls: [],
      usage_metadata: null,
    });
  });

  it('wait returns the final values; a later run sees the prior state', async () => {
    const thread = await newThread();
    await agent.call('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'agent', input: human('a') });
    const second = await agent.call('POST', `/threads/${thread}/runs/wait`, {
      assistant_id: 'agent',
      input: human('b'),
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ turns: 2 });
    expect(texts(second.body as Values)).toStrictEqual(['a', 'echo: a', 'b', 'echo: b']);
  });

  it.each([
    ['a missing assistant_id', { input: human('x') }],
    ['a message without role', { assistant_id: 'agent', input: { messages: [{ content: 'x' }] } }],
    ['an unknown multitask_strategy', { assistant_id: 'agent', multitask_strategy: 'queue' }],
    ['an unknown stream_mode', { assistant_id: 'agent', stream_mode: 'everything' }],
  ])('refuses a run with %s (422)', async (_name, body) => {
    expect((await agent.call('POST', `/threads/${await newThread()}/runs`, body)).status).toBe(422);
  });

  it('a graph error ends the run in error, the thread in error, and join carries the message', async () => {
    const thread = await newThread();
    const run = await createRun(thread, { input: human('boom __fail__') });
    const joined = await agent.call('GET', `/threads/${thread}/runs/${run.run_id}/join`);
    expect(joined.body).toStrictEqual({
      __error__: { error: 'ValueError', message: 'Simulated graph failure' },
    });
    expect(await getRun(thread, run.run_id)).toMatchObject({ status: 'error' });
    expect((await agent.call('GET', `/threads/${thread}`)).body).toMatchObject({ status: 'error' });
  });

  it('a deployment configured to fail fails every run, with its message', async () => {
    const failing = await deploy(sim, { graph: { fail: true, errorMessage: 'model unavailable' } });
    const answer = await failing.call('POST', '/runs/wait', { assistant_id: 'agent', input: human('hi') });
    expect(answer.body).toStrictEqual({ __error__: { error: 'ValueError', message: 'model unavailable' } });
  });

  it('a run longer than runTimeoutMs ends in timeout', async () => {
    const slow = await deploy(sim, { runTimeoutMs: 20 });
    const thread = await newThread(slow);
    const run = await createRun(thread, { input: human('slow'), config: HOLD }, slow);
    const joined = await slow.call('GET', `/threads/${thread}/runs/${run.run_id}/join`);
    expect(joined.body).toMatchObject({ __error__: { error: 'TimeoutError' } });
    expect((await slow.call('GET', `/threads/${thread}/runs/${run.run_id}`)).body).toMatchObject({
      status: 'timeout',
    });
  });
});

describe('multitask strategies', () => {
  it('interrupt: the earlier run becomes interrupted, stays stored, its partial output remains', async () => {
    const thread = await newThread();
    const first = await createRun(thread, { input: human('first'), config: HOLD });
    await untilEchoed(thread, 'first');
    expect(await getRun(thread, first.run_id)).toMatchObject({ status: 'running' });
    expect((await agent.call('GET', `/threads/${thread}`)).body).toMatchObject({ status: 'busy' });

    const second = await createRun(thread, { input: human('second'), multitask_strategy: 'interrupt' });
    expect(await getRun(thread, first.run_id)).toMatchObject({ status: 'interrupted' });
    const joined = await agent.call('GET', `/threads/${thread}/runs/${second.run_id}/join`);
    // The first run's echo stays; its tally never ran; the second run executed on top.
    expect(texts(joined.body as Values)).toStrictEqual(['first', 'echo: first', 'second', 'echo: second']);
    expect(joined.body).toMatchObject({ turns: 1 });
    expect(await getRun(thread, second.run_id)).toMatchObject({ status: 'success' });
    const runs = (await agent.call('GET', `/threads/${thread}/runs`)).body as Run[];
    expect(runs.map((r) => [r.run_id, r.status])).toStrictEqual([
      [second.run_id, 'success'],
      [first.run_id, 'interrupted'],
    ]);
    expect((await agent.call('GET', `/threads/${thread}`)).body).toMatchObject({ status: 'idle' });
  });

  it('reject: a busy thread refuses the new run with 409 and the running one goes on', async () => {
    const thread = await newThread();
    const first = await createRun(thread, { input: human('first'), config: HOLD });
    const refused = await agent.call('POST', `/threads/${thread}/runs`, {
      assistant_id: 'agent',
      input: human('second'),
      multitask_strategy: 'reject',
    });
    expect(refused.status).toBe(409);
    expect(['pending', 'running']).toContain((await getRun(thread, first.run_id)).status);
    expect((await agent.call('POST', `/threads/${thread}/runs/${first.run_id}/cancel`)).status).toBe(204);
    expect(await getRun(thread, first.run_id)).toMatchObject({ status: 'interrupted' });
  });

  it('enqueue: the new run waits as pending and runs after the earlier one ends', async () => {
    const thread = await newThread();
    const first = await createRun(thread, { input: human('first'), config: HOLD });
    const second = await createRun(thread, { input: human('second'), multitask_strategy: 'enqueue' });
    expect(second.status).toBe('pending');
    expect(await getRun(thread, second.run_id)).toMatchObject({ status: 'pending' });
    await untilEchoed(thread, 'first');
    await agent.call('POST', `/threads/${thread}/runs/${first.run_id}/cancel`);
    const joined = await agent.call('GET', `/threads/${thread}/runs/${second.run_id}/join`);
    expect(texts(joined.body as Values)).toStrictEqual(['first', 'echo: first', 'second', 'echo: second']);
  });

  it('rollback: the earlier run and everything it wrote are gone', async () => {
    const thread = await newThread();
    await agent.call('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'agent', input: human('kept') });
    const first = await createRun(thread, { input: human('dropped'), config: HOLD });
    await untilEchoed(thread, 'dropped');
    const second = await createRun(thread, { input: human('second'), multitask_strategy: 'rollback' });
    expect((await agent.call('GET', `/threads/${thread}/runs/${first.run_id}`)).status).toBe(404);
    const joined = await agent.call('GET', `/threads/${thread}/runs/${second.run_id}/join`);
    expect(texts(joined.body as Values)).toStrictEqual(['kept', 'echo: kept', 'second', 'echo: second']);
  });
});

describe('streams', () => {
  it('streams a thread run as server-sent events: metadata, then values and updates per step', async () => {
    const thread = await newThread();
    const { status, headers, events } = await agent.stream(`/threads/${thread}/runs/stream`, {
      assistant_id: 'agent',
      input: human('streamed'),
      stream_mode: ['values', 'updates'],
    });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^text\/event-stream/);
    const runId = (events[0]?.data as { run_id?: string } | undefined)?.run_id ?? '';
    expect(headers.get('content-location')).toBe(`/threads/${thread}/runs/${runId}`);
    expect(events.map((e) => e.event)).toStrictEqual([
      'metadata',
      'values',
      'values',
      'updates',
      'values',
      'updates',
    ]);
    expect(events[3]?.data).toMatchObject({
      echo: { messages: [{ type: 'ai', content: 'echo: streamed' }] },
    });
    expect(events[5]?.data).toStrictEqual({ tally: { turns: 1 } });
    expect(await getRun(thread, runId)).toMatchObject({ status: 'success' });
  });

  it('stream_mode events and messages-tuple', async () => {
    const { events } = await agent.stream('/runs/stream', {
      assistant_id: 'agent',
      input: human('ev'),
      stream_mode: ['events', 'messages-tuple'],
    });
    expect(events.map((e) => e.event)).toStrictEqual([
      'metadata',
      'events',
      'events',
      'messages',
      'events',
      'events',
    ]);
    expect(events[1]?.data).toMatchObject({ event: 'on_chain_start', name: 'agent' });
    expect(events[2]?.data).toMatchObject({ event: 'on_chain_end', name: 'echo' });
    expect(events[3]?.data).toMatchObject([{ type: 'ai', content: 'echo: ev' }, { langgraph_node: 'echo' }]);
    expect(events.at(-1)?.data).toMatchObject({ event: 'on_chain_end', name: 'agent' });
  });

  it('a failing run streams an error event', async () => {
    const { events } = await agent.stream('/runs/stream', {
      assistant_id: 'agent',
      input: human('__fail__'),
    });
    expect(events.at(-1)).toStrictEqual({
      event: 'error',
      data: { error: 'ValueError', message: 'Simulated graph failure' },
    });
  });
});

describe('stateless runs and crons', () => {
  it('POST /runs/wait runs without a persisted thread', async () => {
    const before = ((await agent.call('POST', '/threads/search', { limit: 1000 })).body as unknown[]).length;
    const answer = await agent.call('POST', '/runs/wait', { assistant_id: 'agent', input: human('alone') });
    expect(answer.status).toBe(200);
    expect(texts(answer.body as Values)).toStrictEqual(['alone', 'echo: alone']);
    expect(((await agent.call('POST', '/threads/search', { limit: 1000 })).body as unknown[]).length).toBe(
      before,
    );
  });

  it('creates a thread cron and a cron, accepting webhook, and returns cron records', async () => {
    const thread = await newThread();
    const threadCron = await agent.call('POST', `/threads/${thread}/runs/crons`, {
      assistant_id: 'agent',
      schedule: '*/5 * * * *',
      input: human('tick'),
      webhook: 'https://hooks.example.com/done',
    });
    expect(threadCron.status).toBe(200);
    expect(threadCron.body).toMatchObject({
      cron_id: expect.any(String),
      thread_id: thread,
      schedule: '*/5 * * * *',
      payload: { webhook: 'https://hooks.example.com/done' },
    });
    const cron = await agent.call('POST', '/runs/crons', {
      assistant_id: 'agent',
      schedule: '0 9 * * 1',
      webhook: 'https://hooks.example.com/done',
    });
    expect(cron.body).toMatchObject({ thread_id: null, schedule: '0 9 * * 1' });
    expect(
      (await agent.call('POST', '/runs/crons', { assistant_id: 'agent', schedule: 'soon' })).status,
    ).toBe(422);
  });
});
