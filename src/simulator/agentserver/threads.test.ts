import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../index.ts';
import { type AgentDeployment, deploy, human, startSim } from './test-support.ts';

interface Thread {
  thread_id: string;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
  status: string;
  values: Record<string, unknown>;
}
interface State {
  values: { messages?: Array<{ type: string; content: string }>; turns?: number };
  next: string[];
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  checkpoint: { checkpoint_id: string; thread_id: string; checkpoint_ns: string };
  metadata: {
    step: number;
    source: string;
    writes: Record<string, unknown>;
    parents: object;
    thread_id: string;
  };
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+(Z|\+00:00)$/;

let sim: Simulator;
let agent: AgentDeployment;
beforeAll(async () => {
  sim = await startSim();
  agent = await deploy(sim);
});
afterAll(async () => {
  await sim.close();
});

async function newThread(body: unknown = {}): Promise<Thread> {
  const answer = await agent.call('POST', '/threads', body);
  expect(answer.status).toBe(200);
  return answer.body as Thread;
}

async function runAndJoin(threadId: string, text: string) {
  const run = (
    await agent.call('POST', `/threads/${threadId}/runs`, { assistant_id: 'agent', input: human(text) })
  ).body as { run_id: string };
  return agent.call('GET', `/threads/${threadId}/runs/${run.run_id}/join`);
}

describe('threads', () => {
  it('creates an empty thread: idle, empty values, ISO timestamps with fractional seconds', async () => {
    const thread = await newThread();
    expect(thread).toMatchObject({ status: 'idle', values: {}, metadata: {} });
    expect(thread.thread_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(thread.created_at).toMatch(ISO);
    expect(thread.updated_at).toMatch(ISO);
    const state = (await agent.call('GET', `/threads/${thread.thread_id}/state`)).body as State;
    expect(state.values).toStrictEqual({});
    expect((await agent.call('POST', `/threads/${thread.thread_id}/history`, {})).body).toStrictEqual([]);
  });

  it('creates a thread with metadata and reads it back', async () => {
    const thread = await newThread({ metadata: { graph_id: 'agent', owner: 'team-a' } });
    const got = await agent.call('GET', `/threads/${thread.thread_id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      thread_id: thread.thread_id,
      metadata: { graph_id: 'agent', owner: 'team-a' },
    });
  });

  it('creates a thread from supersteps: values hold the result, graph_id is retained, one checkpoint each', async () => {
    const thread = await newThread({
      metadata: { graph_id: 'agent' },
      supersteps: [
        { updates: [{ values: {}, as_node: '__input__' }] },
        { updates: [{ values: { messages: [{ role: 'user', content: 'hi' }] }, as_node: '__start__' }] },
        { updates: [{ values: { messages: [{ type: 'ai', content: 'hello' }] }, as_node: 'echo' }] },
      ],
    });
    expect(thread.status).toBe('idle');
    expect(thread.metadata.graph_id).toBe('agent');
    expect(thread.values.messages).toMatchObject([
      {
        type: 'human',
        content: 'hi',
        additional_kwargs: {},
        response_metadata: {},
        name: null,
        example: false,
      },
      { type: 'ai', content: 'hello', tool_calls: [], invalid_tool_calls: [], usage_metadata: null },
    ]);
    const history = (await agent.call('POST', `/threads/${thread.thread_id}/history`, {})).body as State[];
    expect(
      history.map((s) => [s.metadata.step, s.metadata.source, Object.keys(s.metadata.writes)]),
    ).toStrictEqual([
      [1, 'update', ['echo']],
      [0, 'loop', ['__start__']],
      [-1, 'input', ['__input__']],
    ]);
  });

  it('refuses a superstep with a malformed message (422) and creates nothing', async () => {
    const before = ((await agent.call('POST', '/threads/search', { limit: 1000 })).body as Thread[]).length;
    const answer = await agent.call('POST', '/threads', {
      supersteps: [{ updates: [{ values: { messages: [{ content: 'no role' }] }, as_node: '__input__' }] }],
    });
    expect(answer.status).toBe(422);
    expect(((await agent.call('POST', '/threads/search', { limit: 1000 })).body as Thread[]).length).toBe(
      before,
    );
  });

  it('answers 404 for an unknown thread', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, path] of [
      ['GET', `/threads/${unknown}`],
      ['GET', `/threads/${unknown}/state`],
      ['POST', `/threads/${unknown}/history`],
      ['POST', `/threads/${unknown}/copy`],
    ] as const) {
      expect((await agent.call(method, path, method === 'POST' ? {} : undefined)).status).toBe(404);
    }
  });

  it('state, state at a checkpoint and history (most recent first, limit) follow the runs', async () => {
    const thread = await newThread();
    expect((await runAndJoin(thread.thread_id, 'one')).status).toBe(200);
    expect((await runAndJoin(thread.thread_id, 'two')).status).toBe(200);

    const state = (await agent.call('GET', `/threads/${thread.thread_id}/state`)).body as State;
    expect(state.values.messages?.map((m) => [m.type, m.content])).toStrictEqual([
      ['human', 'one'],
      ['ai', 'echo: one'],
      ['human', 'two'],
      ['ai', 'echo: two'],
    ]);
    expect(state.values.turns).toBe(2);
    expect(state.next).toStrictEqual([]);
    expect(state.checkpoint).toStrictEqual({
      checkpoint_id: state.checkpoint_id,
      thread_id: thread.thread_id,
      checkpoint_ns: '',
    });

    const history = (await agent.call('POST', `/threads/${thread.thread_id}/history`, { limit: 100 }))
      .body as State[];
    expect(history.map((s) => s.metadata.step)).toStrictEqual([4, 3, 2, 1, 0, -1]);
    expect(history[0]?.checkpoint_id).toBe(state.checkpoint_id);
    expect(history.map((s) => s.parent_checkpoint_id)).toStrictEqual([
      ...history.slice(1).map((s) => s.checkpoint_id),
      null,
    ]);
    expect(history.map((s) => [s.metadata.source, Object.keys(s.metadata.writes)[0]])).toStrictEqual([
      ['loop', 'tally'],
      ['loop', 'echo'],
      ['input', '__start__'],
      ['loop', 'tally'],
      ['loop', 'echo'],
      ['input', '__start__'],
    ]);

    const limited = (await agent.call('POST', `/threads/${thread.thread_id}/history`, { limit: 2 }))
      .body as State[];
    expect(limited.map((s) => s.metadata.step)).toStrictEqual([4, 3]);

    const early = history.find((s) => s.metadata.step === 0) as State;
    const atCheckpoint = await agent.call('GET', `/threads/${thread.thread_id}/state/${early.checkpoint_id}`);
    expect(atCheckpoint.status).toBe(200);
    const earlyState = atCheckpoint.body as State;
    expect(earlyState.values.messages?.map((m) => m.content)).toStrictEqual(['one', 'echo: one']);
    expect(earlyState.next).toStrictEqual(['tally']);
    expect(earlyState.metadata).toMatchObject({
      step: 0,
      source: 'loop',
      thread_id: thread.thread_id,
      parents: {},
    });
    expect((await agent.call('GET', `/threads/${thread.thread_id}/state/not-a-checkpoint`)).status).toBe(404);
  });

  it('copies a thread: same history at the time of copying, independent afterwards', async () => {
    const original = await newThread({ metadata: { purpose: 'copy' } });
    await runAndJoin(original.thread_id, 'first');
    const copied = await agent.call('POST', `/threads/${original.thread_id}/copy`);
    expect(copied.status).toBe(200);
    const copy = copied.body as Thread;
    expect(copy.thread_id).not.toBe(original.thread_id);
    expect(copy.status).toBe('idle');
    expect(copy.metadata).toStrictEqual({
      purpose: 'copy',
      graph_id: 'agent',
      assistant_id: expect.any(String),
    });

    const historyOf = async (id: string) =>
      ((await agent.call('POST', `/threads/${id}/history`, { limit: 100 })).body as State[]).map((s) => ({
        id: s.checkpoint_id,
        values: s.values,
      }));
    expect(await historyOf(copy.thread_id)).toStrictEqual(await historyOf(original.thread_id));

    await runAndJoin(copy.thread_id, 'only in the copy');
    await runAndJoin(original.thread_id, 'only in the original');
    const textsOf = async (id: string) =>
      ((await agent.call('GET', `/threads/${id}/state`)).body as State).values.messages?.map(
        (m) => m.content,
      );
    expect(await textsOf(copy.thread_id)).toStrictEqual([
      'first',
      'echo: first',
      'only in the copy',
      'echo: only in the copy',
    ]);
    expect(await textsOf(original.thread_id)).toStrictEqual([
      'first',
      'echo: first',
      'only in the original',
      'echo: only in the original',
    ]);
  });
});

describe('thread search', () => {
  let tag: string;
  let ids: string[];
  beforeAll(async () => {
    tag = `search-${Date.now()}`;
    ids = [];
    for (const n of [1, 2, 3]) ids.push((await newThread({ metadata: { tag, n } })).thread_id);
    // The second thread ends in error, the third is run successfully (updated later).
    const failing = await agent.call('POST', `/threads/${ids[1]}/runs/wait`, {
      assistant_id: 'agent',
      input: human('please __fail__'),
    });
    expect(failing.status).toBe(200);
    await runAndJoin(ids[2] as string, 'ok');
  });

  const search = async (body: Record<string, unknown>) => {
    const answer = await agent.call('POST', '/threads/search', { metadata: { tag }, ...body });
    expect(answer.status).toBe(200);
    return (answer.body as Thread[]).map((t) => t.thread_id);
  };

  it('filters by metadata equality', async () => {
    expect((await search({})).sort()).toStrictEqual([...ids].sort());
    expect(await search({ metadata: { tag, n: 2 } })).toStrictEqual([ids[1]]);
    expect(await search({ metadata: { tag, n: 4 } })).toStrictEqual([]);
  });

  it.each([
    ['idle', [0, 2]],
    ['error', [1]],
    ['busy', []],
    ['interrupted', []],
  ])('filters by status %s', async (status, expected) => {
    expect((await search({ status })).sort()).toStrictEqual(expected.map((i) => ids[i]).sort());
  });

  it('sorts by created_at (desc by default, asc on request) and pages with limit and offset', async () => {
    expect(await search({})).toStrictEqual([...ids].reverse());
    expect(await search({ sort_by: 'created_at', sort_order: 'asc' })).toStrictEqual(ids);
    expect(await search({ sort_order: 'asc', limit: 2 })).toStrictEqual(ids.slice(0, 2));
    expect(await search({ sort_order: 'asc', limit: 2, offset: 2 })).toStrictEqual(ids.slice(2));
  });

  it('sorts by thread_id, status and updated_at', async () => {
    expect(await search({ sort_by: 'thread_id', sort_order: 'asc' })).toStrictEqual([...ids].sort());
    expect(await search({ sort_by: 'thread_id', sort_order: 'desc' })).toStrictEqual(
      [...ids].sort().reverse(),
    );
    const byStatus = await search({ sort_by: 'status', sort_order: 'asc' });
    expect(byStatus[0]).toBe(ids[1]); // 'error' sorts before 'idle'
    const byUpdate = await search({ sort_by: 'updated_at', sort_order: 'desc' });
    expect(byUpdate[0]).toBe(ids[2]);
  });

  it.each([
    [{ status: 'sleeping' }],
    [{ sort_by: 'name' }],
    [{ sort_order: 'up' }],
    [{ limit: 0 }],
    [{ offset: -1 }],
  ])('refuses %j with 422', async (body) => {
    expect((await agent.call('POST', '/threads/search', body)).status).toBe(422);
  });
});
