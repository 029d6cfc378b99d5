import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Deployment, DeploymentList, DetailError, HTTPValidationError } from '../controlplane/schemas.ts';
import { type Simulator, startSimulator } from './index.ts';
import { MASKED_SECRET_VALUE } from './present.ts';
import { call, createDeployment, externalImageCreate, repoHostCreate } from './test-support.ts';

let sim: Simulator;
let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${++counter}`;
const MISSING_ID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  sim = await startSimulator({ revisionStepMs: 60_000 });
});
afterAll(async () => {
  await sim.close();
});

describe('POST /v2/deployments', () => {
  it('creates an external_image deployment: 201, stored normalised, secrets masked', async () => {
    const name = uniqueName('ext');
    const answer = await call(sim, 'POST', '/v2/deployments', {
      body: externalImageCreate(name, {
        source_config: {
          resource_spec: { cpu: 0.25, memory_mb: 512 },
          listener_config: { k8s_namespace: 'agents' },
          custom_url: 'https://agent.example.com',
        },
      }),
    });
    expect(answer.status).toBe(201);
    const deployment = Deployment.parse(answer.body);
    expect(deployment).toMatchObject({
      name,
      source: 'external_image',
      status: 'AWAITING_DATABASE',
      active_revision_id: null,
      source_revision_config: { image_uri: 'ghcr.io/acme/agent:1.0' },
      secrets: [{ name: 'API_TOKEN', value: MASKED_SECRET_VALUE }],
    });
    expect(deployment.latest_revision_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(deployment.source_config.resource_spec).toStrictEqual({
      cpu: 0.2,
      cpu_limit: 0.4,
      queue_cpu: 0.2,
      queue_cpu_limit: 0.4,
      memory_mb: 512,
      memory_limit_mb: 1024,
      queue_memory_mb: 512,
      queue_memory_limit_mb: 1024,
    });
    expect(deployment.source_config.custom_url).toBe('https://agent.example.com');
    expect(deployment.source_config).not.toHaveProperty('listener_config');
    const stored = sim.deployments().find((d) => d.id === deployment.id);
    expect(stored?.source_config.listener_config).toStrictEqual({ k8s_namespace: 'agents' });
    expect(stored?.secrets).toStrictEqual([{ name: 'API_TOKEN', value: 'secret-value' }]);
  });

  it('creates a repo_host deployment with a custom_url at the simulator and a commit sha', async () => {
    const { id, body } = await createDeployment(sim, repoHostCreate(uniqueName('repo')));
    const deployment = Deployment.parse(body);
    expect(deployment.source_config.custom_url).toBe(`${sim.url}/deployments/${id}`);
    expect(deployment.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(deployment.source_config).not.toHaveProperty('install_command');
    expect(deployment.source_config).not.toHaveProperty('build_command');
    expect(sim.deployments().find((d) => d.id === id)?.source_config.install_command).toBe('npm ci');
  });

  it('refuses a taken name with 400 {detail}', async () => {
    const name = uniqueName('dup');
    await createDeployment(sim, externalImageCreate(name));
    const answer = await call(sim, 'POST', '/v2/deployments', { body: externalImageCreate(name) });
    expect(answer.status).toBe(400);
    expect(DetailError.parse(answer.body).detail).toContain(name);
  });

  const spec = (resource_spec: Record<string, unknown>) => ({ source_config: { resource_spec } });
  const invalid: Array<[string, unknown, Array<string | number>, string]> = [
    ['missing body', undefined, ['body'], 'missing'],
    ['missing name', { ...externalImageCreate('x'), name: undefined }, ['body', 'name'], 'missing'],
    ['missing secrets', { ...externalImageCreate('x'), secrets: undefined }, ['body', 'secrets'], 'missing'],
    ['wrong type', externalImageCreate('x', { name: 7 }), ['body', 'name'], 'string_type'],
    ['unknown source', externalImageCreate('x', { source: 'zip' }), ['body', 'source'], 'enum'],
    ['unknown field', externalImageCreate('x', { extra: 1 }), ['body', 'extra'], 'extra_forbidden'],
    [
      'unknown resource_spec field',
      externalImageCreate('x', spec({ gpu: 1 })),
      ['body', 'source_config', 'resource_spec', 'gpu'],
      'extra_forbidden',
    ],
    [
      'cpu below range',
      externalImageCreate('x', spec({ cpu: 0.05 })),
      ['body', 'source_config', 'resource_spec', 'cpu'],
      'greater_than_equal',
    ],
    [
      'queue_cpu above range',
      externalImageCreate('x', spec({ queue_cpu: 8.5 })),
      ['body', 'source_config', 'resource_spec', 'queue_cpu'],
      'less_than_equal',
    ],
    [
      'cpu_limit above range',
      externalImageCreate('x', spec({ cpu_limit: 17 })),
      ['body', 'source_config', 'resource_spec', 'cpu_limit'],
      'less_than_equal',
    ],
    [
      'queue_cpu_limit below range',
      externalImageCreate('x', spec({ queue_cpu_limit: 0 })),
      ['body', 'source_config', 'resource_spec', 'queue_cpu_limit'],
      'greater_than_equal',
    ],
    [
      'memory not an integer',
      externalImageCreate('x', spec({ memory_mb: 1.5 })),
      ['body', 'source_config', 'resource_spec', 'memory_mb'],
      'int_type',
    ],
    [
      'orchestrator field set',
      externalImageCreate('x', spec({ orchestrator_cpu: 1 })),
      ['body', 'source_config', 'resource_spec', 'orchestrator_cpu'],
      'value_error',
    ],
    [
      'executor field set',
      externalImageCreate('x', spec({ executor_memory_mb: 10 })),
      ['body', 'source_config', 'resource_spec', 'executor_memory_mb'],
      'value_error',
    ],
    [
      'repo_url on external_image',
      externalImageCreate('x', { source_config: { repo_url: 'https://github.com/a/b' } }),
      ['body', 'source_config', 'repo_url'],
      'value_error',
    ],
    [
      'repo_ref on external_image',
      externalImageCreate('x', { source_revision_config: { image_uri: 'i', repo_ref: 'main' } }),
      ['body', 'source_revision_config', 'repo_ref'],
      'value_error',
    ],
    [
      'resource_spec on repo_host',
      repoHostCreate('x', { source_config: { repo_url: 'r', resource_spec: { cpu: 1 } } }),
      ['body', 'source_config', 'resource_spec'],
      'value_error',
    ],
    [
      'custom_url on repo_host',
      repoHostCreate('x', { source_config: { repo_url: 'r', custom_url: 'https://x' } }),
      ['body', 'source_config', 'custom_url'],
      'value_error',
    ],
    [
      'image_uri on repo_host',
      repoHostCreate('x', { source_revision_config: { repo_ref: 'main', image_uri: 'i' } }),
      ['body', 'source_revision_config', 'image_uri'],
      'value_error',
    ],
    [
      'build_on_push with a tag',
      repoHostCreate('x', { source_revision_config: { repo_ref: 'refs/tags/v1' } }),
      ['body', 'source_config', 'build_on_push'],
      'value_error',
    ],
    [
      'integration_id not a uuid',
      repoHostCreate('x', { source_config: { repo_url: 'r', integration_id: 'nope' } }),
      ['body', 'source_config', 'integration_id'],
      'uuid_parsing',
    ],
    [
      'repo_host without repo_url',
      repoHostCreate('x', { source_config: {} }),
      ['body', 'source_config', 'repo_url'],
      'missing',
    ],
    [
      'external_image without image_uri',
      externalImageCreate('x', { source_revision_config: {} }),
      ['body', 'source_revision_config', 'image_uri'],
      'missing',
    ],
  ];

  it.each(invalid)('422 for %s', async (_name, body, loc, type) => {
    const answer = await call(sim, 'POST', '/v2/deployments', body === undefined ? {} : { body });
    expect(answer.status).toBe(422);
    const { detail } = HTTPValidationError.parse(answer.body);
    expect(detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it('422 json_invalid for a body that is not JSON', async () => {
    const answer = await call(sim, 'POST', '/v2/deployments', { rawBody: '{"name": ' });
    expect(answer.status).toBe(422);
    expect(HTTPValidationError.parse(answer.body).detail[0]?.type).toBe('json_invalid');
  });

  it('accepts build_on_push false with a tag', async () => {
    const body = repoHostCreate(uniqueName('tag'), {
      source_config: { repo_url: 'https://github.com/acme/agent', build_on_push: false },
      source_revision_config: { repo_ref: 'refs/tags/v1.0.0', graph_config_path: 'langgraph.json' },
    });
    expect((await call(sim, 'POST', '/v2/deployments', { body })).status).toBe(201);
  });
});

describe('GET /v2/deployments/{deployment_id}', () => {
  it('returns the deployment', async () => {
    const { id } = await createDeployment(sim, externalImageCreate(uniqueName('get')));
    const answer = await call(sim, 'GET', `/v2/deployments/${id}`);
    expect(answer.status).toBe(200);
    expect(Deployment.parse(answer.body).id).toBe(id);
  });

  it.each([
    ['GET', undefined],
    ['PATCH', {}],
    ['DELETE', undefined],
  ])('%s answers 404 naming the missing id', async (method, body) => {
    const answer = await call(sim, method, `/v2/deployments/${MISSING_ID}`, body ? { body } : {});
    expect(answer.status).toBe(404);
    expect(DetailError.parse(answer.body).detail).toBe(`Deployment ${MISSING_ID} not found`);
  });

  it('422 for a deployment id that is not a uuid', async () => {
    const answer = await call(sim, 'GET', '/v2/deployments/not-a-uuid');
    expect(answer.status).toBe(422);
    expect(HTTPValidationError.parse(answer.body).detail[0]?.loc).toStrictEqual(['path', 'deployment_id']);
  });
});

describe('PATCH /v2/deployments/{deployment_id}', () => {
  let id: string;
  let repoId: string;
  beforeEach(async () => {
    ({ id } = await createDeployment(sim, externalImageCreate(uniqueName('patch'))));
    ({ id: repoId } = await createDeployment(sim, repoHostCreate(uniqueName('patch-repo'))));
  });
  const revisionCount = (deploymentId: string) => sim.revisions(deploymentId).length;

  const creates: Array<[string, 'ext' | 'repo', Record<string, unknown>, boolean]> = [
    ['image_uri', 'ext', { source_revision_config: { image_uri: 'ghcr.io/acme/agent:2' } }, true],
    ['repo_ref', 'repo', { source_revision_config: { repo_ref: 'develop' } }, true],
    ['graph_config_path', 'repo', { source_revision_config: { graph_config_path: 'other.json' } }, true],
    ['non-empty secrets', 'ext', { secrets: [{ name: 'A', value: 'b' }] }, true],
    ['resource_spec', 'ext', { source_config: { resource_spec: { cpu: 2 } } }, true],
    ['empty secrets', 'ext', { secrets: [] }, false],
    ['empty body', 'ext', {}, false],
    ['all nulls', 'ext', { source_config: null, source_revision_config: null, secrets: null }, false],
    ['custom_url only', 'ext', { source_config: { custom_url: 'https://new.example.com' } }, false],
    ['build_on_push only', 'repo', { source_config: { build_on_push: false } }, false],
    ['install_command only', 'repo', { source_config: { install_command: 'pnpm i' } }, false],
    [
      'same immutable values',
      'repo',
      { source_config: { repo_url: 'https://github.com/acme/agent' } },
      false,
    ],
  ];

  it.each(creates)('%s -> new revision: %s', async (_name, which, body, expected) => {
    const target = which === 'ext' ? id : repoId;
    const before = revisionCount(target);
    const answer = await call(sim, 'PATCH', `/v2/deployments/${target}`, { body });
    expect(answer.status).toBe(200);
    expect(revisionCount(target)).toBe(before + (expected ? 1 : 0));
    const deployment = Deployment.parse(answer.body);
    expect(deployment.latest_revision_id).toBe(sim.revisions(target)[0]?.id);
  });

  it('a non-null resource_spec replaces the whole stored one', async () => {
    const body = { source_config: { resource_spec: { min_scale: 2 } } };
    const answer = await call(sim, 'PATCH', `/v2/deployments/${id}`, { body });
    expect(Deployment.parse(answer.body).source_config.resource_spec).toStrictEqual({
      min_scale: 2,
      queue_min_scale: 2,
    });
  });

  it('other source_config fields update without touching the rest', async () => {
    const answer = await call(sim, 'PATCH', `/v2/deployments/${id}`, {
      body: { source_config: { custom_url: 'https://new.example.com' } },
    });
    const deployment = Deployment.parse(answer.body);
    expect(deployment.source_config.custom_url).toBe('https://new.example.com');
    expect(deployment.source_config.resource_spec?.cpu).toBe(1);
  });

  it('secrets replace the stored list and are never echoed', async () => {
    const answer = await call(sim, 'PATCH', `/v2/deployments/${id}`, {
      body: { secrets: [{ name: 'NEW', value: 'v2' }] },
    });
    expect(Deployment.parse(answer.body).secrets).toStrictEqual([
      { name: 'NEW', value: MASKED_SECRET_VALUE },
    ]);
    expect(sim.deployments().find((d) => d.id === id)?.secrets).toStrictEqual([{ name: 'NEW', value: 'v2' }]);
  });

  const immutable: Array<[string, 'ext' | 'repo', Record<string, unknown>]> = [
    ['name', 'ext', { name: 'renamed' }],
    ['source', 'ext', { source: 'repo_host' }],
    ['integration_id', 'repo', { source_config: { integration_id: '11111111-1111-4111-8111-111111111111' } }],
    ['repo_url', 'repo', { source_config: { repo_url: 'https://github.com/acme/other' } }],
    ['deployment_type', 'repo', { source_config: { deployment_type: 'prod' } }],
    ['listener_id', 'ext', { source_config: { listener_id: '11111111-1111-4111-8111-111111111111' } }],
    [
      'listener_config.k8s_namespace',
      'ext',
      { source_config: { listener_config: { k8s_namespace: 'other' } } },
    ],
  ];

  it.each(immutable)('400 when changing %s', async (field, which, body) => {
    const answer = await call(sim, 'PATCH', `/v2/deployments/${which === 'ext' ? id : repoId}`, { body });
    expect(answer.status).toBe(400);
    expect(DetailError.parse(answer.body).detail).toContain(field);
  });

  it.each([
    ['image_uri on repo_host', 'repo', { source_revision_config: { image_uri: 'x' } }, 'image_uri'],
    ['repo_ref on external_image', 'ext', { source_revision_config: { repo_ref: 'main' } }, 'repo_ref'],
    [
      'tag while build_on_push is stored true',
      'repo',
      { source_revision_config: { repo_ref: 'refs/tags/v2' } },
      'build_on_push',
    ],
    ['unknown field', 'ext', { source_config: { colour: 'red' } }, 'colour'],
    ['cpu out of range', 'ext', { source_config: { resource_spec: { cpu: 8.5 } } }, 'cpu'],
  ] as const)('422 for %s', async (_name, which, body, lastLoc) => {
    const answer = await call(sim, 'PATCH', `/v2/deployments/${which === 'ext' ? id : repoId}`, { body });
    expect(answer.status).toBe(422);
    const { detail } = HTTPValidationError.parse(answer.body);
    expect(detail.map((d) => d.loc.at(-1))).toContain(lastLoc);
  });

  it('a tag is accepted when the same patch turns build_on_push off', async () => {
    const answer = await call(sim, 'PATCH', `/v2/deployments/${repoId}`, {
      body: { source_config: { build_on_push: false }, source_revision_config: { repo_ref: 'refs/tags/v2' } },
    });
    expect(answer.status).toBe(200);
  });
});

describe('DELETE /v2/deployments/{deployment_id}', () => {
  it('answers 204 and the deletion starts: AWAITING_DELETE, changes refused with 409', async () => {
    const { id } = await createDeployment(sim, externalImageCreate(uniqueName('del')));
    const answer = await call(sim, 'DELETE', `/v2/deployments/${id}?delete_tracing_project=true`);
    expect(answer.status).toBe(204);
    expect(answer.body).toBeUndefined();
    const read = await call(sim, 'GET', `/v2/deployments/${id}`);
    expect(Deployment.parse(read.body).status).toBe('AWAITING_DELETE');
    const patch = await call(sim, 'PATCH', `/v2/deployments/${id}`, {
      body: { source_revision_config: { image_uri: 'ghcr.io/acme/agent:2.0' } },
    });
    expect(patch.status).toBe(409);
    expect(DetailError.parse(patch.body).detail).toContain('being deleted');
    expect((await call(sim, 'DELETE', `/v2/deployments/${id}`)).status).toBe(204);
  });

  it('422 for a delete_tracing_project that is not a boolean', async () => {
    const { id } = await createDeployment(sim, externalImageCreate(uniqueName('del')));
    const answer = await call(sim, 'DELETE', `/v2/deployments/${id}?delete_tracing_project=maybe`);
    expect(answer.status).toBe(422);
    expect(HTTPValidationError.parse(answer.body).detail[0]?.loc).toStrictEqual([
      'query',
      'delete_tracing_project',
    ]);
  });

  it('a deployment deleted behind the operator answers 404', async () => {
    const { id } = await createDeployment(sim, externalImageCreate(uniqueName('gone')));
    sim.deleteDeploymentBehindOperator(id);
    expect((await call(sim, 'GET', `/v2/deployments/${id}`)).status).toBe(404);
  });
});

describe('GET /v2/deployments', () => {
  let listSim: Simulator;
  const ids: string[] = [];
  beforeAll(async () => {
    listSim = await startSimulator({ revisionStepMs: 60_000 });
    for (const name of ['alpha-one', 'alpha-two', 'beta-one', 'Gamma-ALPHA', 'delta']) {
      ids.push((await createDeployment(listSim, externalImageCreate(name))).id);
    }
  });
  afterAll(async () => {
    await listSim.close();
  });
  const names = (body: unknown) => DeploymentList.parse(body).resources.map((d) => d.name);

  it.each([
    ['', ['delta', 'Gamma-ALPHA', 'beta-one', 'alpha-two', 'alpha-one']],
    ['?name_contains=alpha', ['Gamma-ALPHA', 'alpha-two', 'alpha-one']],
    ['?name_contains=one', ['beta-one', 'alpha-one']],
    ['?status=READY', []],
    ['?status=AWAITING_DATABASE&limit=1', ['delta']],
    ['?limit=2&offset=1', ['Gamma-ALPHA', 'beta-one']],
    ['?offset=10', []],
  ])('filters and pages: %s', async (query, expected) => {
    const answer = await call(listSim, 'GET', `/v2/deployments${query}`);
    expect(answer.status).toBe(200);
    expect(names(answer.body)).toStrictEqual(expected);
  });

  it('filters by deployment_ids, repeated or comma-separated', async () => {
    const [a, b, c] = ids;
    const repeated = await call(listSim, 'GET', `/v2/deployments?deployment_ids=${a}&deployment_ids=${b}`);
    const commas = await call(listSim, 'GET', `/v2/deployments?deployment_ids=${a},${c}`);
    expect(names(repeated.body).sort()).toStrictEqual(['alpha-one', 'alpha-two']);
    expect(names(commas.body).sort()).toStrictEqual(['alpha-one', 'beta-one']);
  });

  it('by deployment_ids answers newest first, each once, ids it does not hold left out, the other filters kept', async () => {
    const [a, b, c, d] = ids;
    const unknown = '00000000-0000-4000-8000-000000000000';
    const listed = await call(
      listSim,
      'GET',
      `/v2/deployments?deployment_ids=${a},${c},${unknown},${a},${d}`,
    );
    expect(names(listed.body)).toStrictEqual(['Gamma-ALPHA', 'beta-one', 'alpha-one']);
    const named = await call(
      listSim,
      'GET',
      `/v2/deployments?deployment_ids=${a},${b},${d}&name_contains=ALPHA`,
    );
    expect(names(named.body)).toStrictEqual(['Gamma-ALPHA', 'alpha-two', 'alpha-one']);
    const paged = await call(
      listSim,
      'GET',
      `/v2/deployments?deployment_ids=${a},${b},${c}&limit=1&offset=1`,
    );
    expect(names(paged.body)).toStrictEqual(['alpha-two']);
  });

  it('answers the offset of the next page; walking it visits each deployment once', async () => {
    const seen: string[] = [];
    let offset = 0;
    for (;;) {
      const list = DeploymentList.parse(
        (await call(listSim, 'GET', `/v2/deployments?limit=2&offset=${offset}`)).body,
      );
      seen.push(...list.resources.map((d) => d.id));
      if (list.resources.length < 2) break;
      expect(list.offset).toBe(offset + 2);
      offset = list.offset;
    }
    expect(seen.sort()).toStrictEqual([...ids].sort());
  });

  it.each([
    ['limit=0', ['query', 'limit'], 'greater_than_equal'],
    ['limit=101', ['query', 'limit'], 'less_than_equal'],
    ['limit=abc', ['query', 'limit'], 'int_parsing'],
    ['offset=-1', ['query', 'offset'], 'greater_than_equal'],
    ['status=BROKEN', ['query', 'status'], 'enum'],
    ['deployment_ids=nope', ['query', 'deployment_ids', 0], 'uuid_parsing'],
  ])('422 for %s', async (query, loc, type) => {
    const answer = await call(listSim, 'GET', `/v2/deployments?${query}`);
    expect(answer.status).toBe(422);
    expect(HTTPValidationError.parse(answer.body).detail).toContainEqual(
      expect.objectContaining({ loc, type }),
    );
  });
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/v2/nothing', 404, 'Not Found'],
    ['PUT', '/v2/deployments', 405, 'Method Not Allowed'],
  ])('%s %s -> %d', async (method, path, status, detail) => {
    const answer = await call(sim, method, path);
    expect(answer.status).toBe(status);
    expect(answer.body).toStrictEqual({ detail });
  });
});
