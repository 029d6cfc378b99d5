import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeploymentList } from '../controlplane/schemas.ts';
import { FaultBook, pickLatency, spoilBody } from './faults.ts';
import { type Simulator, startSimulator } from './index.ts';
import { call, createDeployment, externalImageCreate } from './test-support.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ revisionStepMs: 60_000 });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.clearFaults();
  sim.setLatency(0);
  sim.resetRequests();
});

describe('status faults', () => {
  it.each([500, 503, 429])('answers %d with {detail} and Retry-After, then recovers', async (status) => {
    sim.addFault({ method: 'GET', route: '/v2/deployments', status, retryAfterSeconds: 3, times: 1 });
    const faulted = await call(sim, 'GET', '/v2/deployments');
    expect(faulted.status).toBe(status);
    expect(faulted.headers.get('retry-after')).toBe('3');
    expect(faulted.body).toStrictEqual({ detail: expect.any(String) });
    expect((await call(sim, 'GET', '/v2/deployments')).status).toBe(200);
  });

  it('a status fault does not run the handler', async () => {
    sim.addFault({ method: 'POST', route: '/v2/deployments', status: 503, times: 1 });
    expect(
      (await call(sim, 'POST', '/v2/deployments', { body: externalImageCreate('not-made') })).status,
    ).toBe(503);
    expect(sim.deployments().some((d) => d.name === 'not-made')).toBe(false);
  });

  it('matches only its method and route', async () => {
    sim.addFault({ method: 'PATCH', route: '/v2/deployments/{deployment_id}', status: 500 });
    expect((await call(sim, 'GET', '/v2/deployments')).status).toBe(200);
    const { id } = await createDeployment(sim, externalImageCreate('match-only'));
    expect((await call(sim, 'GET', `/v2/deployments/${id}`)).status).toBe(200);
    expect((await call(sim, 'PATCH', `/v2/deployments/${id}`, { body: {} })).status).toBe(500);
  });

  it('the remove function ends a rule without times', async () => {
    const remove = sim.addFault({ route: '/v2/listeners', status: 500 });
    expect((await call(sim, 'GET', '/v2/listeners')).status).toBe(500);
    expect((await call(sim, 'GET', '/v2/listeners')).status).toBe(500);
    remove();
    expect((await call(sim, 'GET', '/v2/listeners')).status).toBe(200);
  });

  it('probability 0 never fires', async () => {
    sim.addFault({ route: '/v2/listeners', status: 500, probability: 0 });
    for (let i = 0; i < 5; i++) expect((await call(sim, 'GET', '/v2/listeners')).status).toBe(200);
  });
});

describe('other fault kinds', () => {
  it('drops the connection: fetch fails and the request is still logged', async () => {
    sim.addFault({ route: '/v2/listeners', dropConnection: true, times: 1 });
    await expect(call(sim, 'GET', '/v2/listeners')).rejects.toThrow();
    expect(sim.requests({ route: '/v2/listeners' })).toMatchObject([{ method: 'GET', status: 0 }]);
    expect((await call(sim, 'GET', '/v2/listeners')).status).toBe(200);
  });

  it('drops the answer after the commit: the deployment exists, the request is logged with its status', async () => {
    sim.addFault({ method: 'POST', route: '/v2/deployments', dropResponse: 'after-commit', times: 1 });
    await expect(
      call(sim, 'POST', '/v2/deployments', { body: externalImageCreate('answer-lost') }),
    ).rejects.toThrow();
    expect(sim.deployments().filter((d) => d.name === 'answer-lost')).toHaveLength(1);
    expect(sim.requests({ method: 'POST', route: '/v2/deployments' })).toMatchObject([{ status: 201 }]);
  });

  it('commits a dropped request only when the next one of its route arrives, before handling it', async () => {
    sim.addFault({ method: 'POST', route: '/v2/deployments', dropResponse: 'commit-before-next', times: 1 });
    await expect(
      call(sim, 'POST', '/v2/deployments', { body: externalImageCreate('late-commit') }),
    ).rejects.toThrow();
    expect(sim.deployments().some((d) => d.name === 'late-commit')).toBe(false);
    expect((await call(sim, 'GET', '/v2/deployments')).status).toBe(200);
    expect(sim.deployments().some((d) => d.name === 'late-commit')).toBe(false);
    const second = await call(sim, 'POST', '/v2/deployments', { body: externalImageCreate('late-commit') });
    expect(second.status).toBe(400); // the held create committed first and took the name
    expect(sim.deployments().filter((d) => d.name === 'late-commit')).toHaveLength(1);
    expect(sim.requests({ method: 'POST', route: '/v2/deployments' }).map((r) => r.status)).toEqual([
      201, 400,
    ]);
  });

  it('commit-later: the answer is lost and the change applied later, after a newer one', async () => {
    const created = await call(sim, 'POST', '/v2/deployments', { body: externalImageCreate('applied-late') });
    const id = (created.body as { id: string }).id;
    const path = `/v2/deployments/${id}`;
    const image = (uri: string) => ({ body: { source_revision_config: { image_uri: uri } } });
    sim.addFault({ method: 'PATCH', dropResponse: 'commit-later', commitAfterMs: 200, times: 1 });
    await expect(call(sim, 'PATCH', path, image('registry.example.com/late:2'))).rejects.toThrow();
    expect((await call(sim, 'PATCH', path, image('registry.example.com/late:3'))).status).toBe(200);
    const imageNow = () => sim.deployments().find((d) => d.id === id)?.source_revision_config.image_uri;
    expect(imageNow()).toBe('registry.example.com/late:3');
    await expect.poll(imageNow).toBe('registry.example.com/late:2');
  });

  it('not-json: a 200 whose body does not parse', async () => {
    sim.addFault({ route: '/v2/deployments', method: 'GET', malformed: 'not-json', times: 1 });
    const answer = await call(sim, 'GET', '/v2/deployments');
    expect(answer.status).toBe(200);
    expect(typeof answer.body).toBe('string');
  });

  it.each(['missing-fields', 'wrong-types'] as const)(
    '%s: the body fails the response schema',
    async (kind) => {
      sim.addFault({ route: '/v2/deployments', method: 'GET', malformed: kind, times: 1 });
      const answer = await call(sim, 'GET', '/v2/deployments');
      expect(answer.status).toBe(200);
      expect(DeploymentList.safeParse(answer.body).success).toBe(false);
      expect(DeploymentList.safeParse((await call(sim, 'GET', '/v2/deployments')).body).success).toBe(true);
    },
  );

  it('a malformed fault still runs the handler', async () => {
    sim.addFault({ route: '/v2/deployments', method: 'POST', malformed: 'not-json', times: 1 });
    await call(sim, 'POST', '/v2/deployments', { body: externalImageCreate('made-anyway') });
    expect(sim.deployments().some((d) => d.name === 'made-anyway')).toBe(true);
  });

  it('latency alone delays but answers normally', async () => {
    sim.addFault({ route: '/v2/listeners', latencyMs: { min: 1, max: 5 }, times: 1 });
    sim.setLatency(2);
    expect((await call(sim, 'GET', '/v2/listeners')).status).toBe(200);
  });
});

describe('request log', () => {
  it('records route template, path, query, body and status; admin calls are left out', async () => {
    const { id } = await createDeployment(sim, externalImageCreate('logged'));
    await call(sim, 'GET', `/v2/deployments/${id}?x=1`);
    await fetch(`${sim.url}/_simulator/state`);
    const records = sim.requests();
    expect(records.map((r) => [r.method, r.route, r.status])).toStrictEqual([
      ['POST', '/v2/deployments', 201],
      ['GET', '/v2/deployments/{deployment_id}', 200],
    ]);
    expect(records[0]?.body).toMatchObject({ name: 'logged' });
    expect(records[1]).toMatchObject({ path: `/v2/deployments/${id}`, query: { x: '1' } });
    expect(sim.requests({ method: 'get', route: '/v2/deployments/{deployment_id}' })).toHaveLength(1);
  });
});

describe('FaultBook', () => {
  it('uses up times and skips a rule whose draw fails', () => {
    const draws = [0.9, 0.1, 0.1];
    const book = new FaultBook(() => draws.shift() ?? 0);
    book.add({ route: '/a', status: 500, times: 1, probability: 0.5 });
    expect(book.take('GET', '/a', '/a')).toBeUndefined();
    expect(book.take('GET', '/a', '/a')?.status).toBe(500);
    expect(book.take('GET', '/a', '/a')).toBeUndefined();
    expect(book.list()).toStrictEqual([]);
  });
});

describe('pickLatency and spoilBody', () => {
  it.each([
    [undefined, 0],
    [7, 7],
    [{ min: 10, max: 20 }, 15],
  ])('pickLatency(%j) with a 0.5 draw is %d', (latency, expected) => {
    expect(pickLatency(latency, () => 0.5)).toBe(expected);
  });

  it.each([
    ['missing-fields', { id: 'a', name: 'n', extra: 1 }, { extra: 1 }],
    [
      'wrong-types',
      { id: 'a', n: 1, list: [], flag: true },
      { id: 42, n: 'not-a-number', list: 'not-an-array', flag: 'yes' },
    ],
  ] as const)('%s', (kind, body, expected) => {
    expect(JSON.parse(spoilBody(kind, body))).toStrictEqual(expected);
  });
});
