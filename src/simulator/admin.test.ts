import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HTTPValidationError, Revision } from '../controlplane/schemas.ts';
import { SandboxTemplateList } from '../controlplane/template-schemas.ts';
import { type Simulator, startSimulator } from './index.ts';
import { call, createDeployment, externalImageCreate } from './test-support.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ revisionStepMs: 5 });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.clearFaults();
  sim.resetRequests();
});

const admin = (method: string, path: string, body?: unknown) =>
  call(sim, method, `/_simulator${path}`, { auth: false, ...(body === undefined ? {} : { body }) });

describe('admin API', () => {
  it('GET and DELETE requests, with method and route filters', async () => {
    await call(sim, 'GET', '/v2/listeners');
    await call(sim, 'GET', '/v2/deployments');
    const filtered = await admin('GET', '/requests?method=GET&route=/v2/listeners');
    expect(filtered.status).toBe(200);
    expect((filtered.body as { requests: unknown[] }).requests).toMatchObject([{ route: '/v2/listeners' }]);
    expect((await admin('DELETE', '/requests')).status).toBe(204);
    expect(sim.requests()).toStrictEqual([]);
  });

  it('POST faults, DELETE one fault, DELETE all faults', async () => {
    const added = await admin('POST', '/faults', {
      route: '/v2/listeners',
      status: 503,
      retryAfterSeconds: 1,
    });
    expect(added.status).toBe(201);
    const { id } = added.body as { id: number };
    expect((await call(sim, 'GET', '/v2/listeners')).status).toBe(503);
    expect((await admin('DELETE', `/faults/${id}`)).status).toBe(204);
    expect((await call(sim, 'GET', '/v2/listeners')).status).toBe(200);
    await admin('POST', '/faults', { route: '/v2/listeners', status: 500 });
    expect((await admin('DELETE', '/faults')).status).toBe(204);
    expect((await call(sim, 'GET', '/v2/listeners')).status).toBe(200);
  });

  it.each([
    ['/faults', { status: 'bad' }],
    ['/faults', { unknown: 1 }],
    ['/latency', { ms: -1 }],
    ['/fail-revisions', { at: 'LATER' }],
    ['/faults', undefined],
  ])('POST %s refuses %j with 422', async (path, body) => {
    const answer = await admin('POST', path, body);
    expect(answer.status).toBe(422);
    expect(HTTPValidationError.safeParse(answer.body).success).toBe(true);
  });

  it.each([[5], [{ ms: 5 }], [{ min: 1, max: 3 }]])('POST latency accepts %j', async (body) => {
    expect((await admin('POST', '/latency', body)).status).toBe(204);
    await admin('POST', '/latency', 0);
  });

  it('POST fail-revisions fails the next revision; GET state shows it', async () => {
    expect(
      (await admin('POST', '/fail-revisions', { at: 'DEPLOY', deploymentName: 'admin-fail' })).status,
    ).toBe(204);
    const { id, revisionId } = await createDeployment(sim, externalImageCreate('admin-fail'));
    await expect
      .poll(
        async () =>
          Revision.parse((await call(sim, 'GET', `/v2/deployments/${id}/revisions/${revisionId}`)).body)
            .status,
      )
      .toBe('DEPLOY_FAILED');
    const state = (await admin('GET', '/state')).body as {
      deployments: Array<{ id: string }>;
      revisions: Record<string, Array<{ status: string }>>;
    };
    expect(state.deployments.map((d) => d.id)).toContain(id);
    expect(state.revisions[id]?.[0]?.status).toBe('DEPLOY_FAILED');
  });

  it('PUT templates replaces the sandbox templates', async () => {
    expect((await admin('PUT', '/templates', [{ name: 'from-admin', image: 'x' }])).status).toBe(204);
    const list = SandboxTemplateList.parse((await call(sim, 'GET', '/v2/sandboxes/templates')).body);
    expect(list.templates.map((t) => t.name)).toStrictEqual(['from-admin']);
    expect((await admin('PUT', '/templates', [{ image: 'no name' }])).status).toBe(422);
  });

  it('DELETE deployments/{id} removes it behind the operator', async () => {
    const { id } = await createDeployment(sim, externalImageCreate('admin-gone'));
    expect((await admin('DELETE', `/deployments/${id}`)).status).toBe(204);
    expect((await call(sim, 'GET', `/v2/deployments/${id}`)).status).toBe(404);
    expect((await admin('DELETE', `/deployments/${id}`)).status).toBe(404);
  });

  it('admin calls need no auth and are not logged', async () => {
    await admin('GET', '/state');
    expect(sim.requests()).toStrictEqual([]);
  });
});
