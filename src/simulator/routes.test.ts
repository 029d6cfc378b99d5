import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTPValidationError, ListenerList } from '../controlplane/schemas.ts';
import { SandboxTemplateList } from '../controlplane/template-schemas.ts';
import { defaultListeners, type SandboxTemplateSeed, type Simulator, startSimulator } from './index.ts';
import { call } from './test-support.ts';

const SEEDS: SandboxTemplateSeed[] = [
  { name: 'python-3.12', image: 'b/python', created_at: '2026-01-02T00:00:00Z' },
  { name: 'Node-24', image: 'c/node', created_at: '2026-01-01T00:00:00Z' },
  { name: 'pythonista', image: 'a/py', created_at: '2026-01-03T00:00:00Z' },
];

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ templates: SEEDS });
});
afterAll(async () => {
  await sim.close();
});

describe('GET /v2/sandboxes/templates', () => {
  const names = (body: unknown) => SandboxTemplateList.parse(body).templates.map((t) => t.name);

  it.each([
    ['', ['pythonista', 'python-3.12', 'Node-24']],
    ['?sort_by=name&sort_direction=asc', ['Node-24', 'python-3.12', 'pythonista']],
    ['?sort_by=image', ['Node-24', 'python-3.12', 'pythonista']],
    ['?sort_by=image&sort_direction=asc', ['pythonista', 'python-3.12', 'Node-24']],
    ['?sort_by=created_at&sort_direction=asc', ['Node-24', 'python-3.12', 'pythonista']],
    ['?name_contains=PYTHON', ['pythonista', 'python-3.12']],
    ['?name_contains=node', ['Node-24']],
    ['?limit=1&offset=1', ['python-3.12']],
    ['?offset=3', []],
  ])('%s', async (query, expected) => {
    const answer = await call(sim, 'GET', `/v2/sandboxes/templates${query}`);
    expect(answer.status).toBe(200);
    expect(names(answer.body)).toStrictEqual(expected);
  });

  it('answers the next offset and fills in ids and timestamps', async () => {
    const list = SandboxTemplateList.parse((await call(sim, 'GET', '/v2/sandboxes/templates?limit=2')).body);
    expect(list.offset).toBe(2);
    for (const template of list.templates) {
      expect(template.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(template.updated_at).toEqual(expect.any(String));
    }
  });

  it.each([
    ['limit=0', ['query', 'limit'], 'greater_than_equal'],
    ['limit=501', ['query', 'limit'], 'less_than_equal'],
    ['limit=1.5', ['query', 'limit'], 'int_parsing'],
    ['offset=-1', ['query', 'offset'], 'greater_than_equal'],
    ['sort_by=size', ['query', 'sort_by'], 'enum'],
    ['sort_direction=up', ['query', 'sort_direction'], 'enum'],
  ])('422 for %s', async (query, loc, type) => {
    const answer = await call(sim, 'GET', `/v2/sandboxes/templates?${query}`);
    expect(answer.status).toBe(422);
    expect(HTTPValidationError.parse(answer.body).detail).toStrictEqual([
      { loc, msg: expect.any(String), type },
    ]);
  });

  it('limit 500 is accepted', async () => {
    expect((await call(sim, 'GET', '/v2/sandboxes/templates?limit=500')).status).toBe(200);
  });

  it('setTemplates replaces the list', async () => {
    const other = await startSimulator({ templates: SEEDS });
    try {
      other.setTemplates([{ id: 'fixed-id', name: 'only' }]);
      const list = SandboxTemplateList.parse((await call(other, 'GET', '/v2/sandboxes/templates')).body);
      expect(list.templates.map((t) => [t.id, t.name])).toStrictEqual([['fixed-id', 'only']]);
    } finally {
      await other.close();
    }
  });
});

describe('GET /v2/listeners', () => {
  it('lists the default k8s listener', async () => {
    const list = ListenerList.parse((await call(sim, 'GET', '/v2/listeners')).body);
    expect(list.resources).toStrictEqual([
      { ...defaultListeners()[0], created_at: expect.any(String), updated_at: expect.any(String) },
    ]);
    expect(list.resources[0]).toMatchObject({ compute_type: 'k8s' });
    expect(list.offset).toBe(1);
  });

  it('lists seeded listeners', async () => {
    const other = await startSimulator({ listeners: [{ id: 'a' }, { id: 'b' }] });
    try {
      const list = ListenerList.parse((await call(other, 'GET', '/v2/listeners?offset=1')).body);
      expect(list.resources).toStrictEqual([{ id: 'b' }]);
    } finally {
      await other.close();
    }
  });
});

describe('GET /v1/integrations/{repo_host}/install', () => {
  it('answers an integration id, the same each time', async () => {
    const first = await call(sim, 'GET', '/v1/integrations/github/install');
    const second = await call(sim, 'GET', '/v1/integrations/github/install');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      integration_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      repo_host: 'github',
    });
    expect(second.body).toStrictEqual(first.body);
  });
});
