/**
 * Shared by the simulator's tests, and by tests that script a control plane of their own: a fetch wrapper,
 * small builders of valid requests, and the smallest deployment answer the contract allows.
 */
import type { Simulator } from './index.ts';

export const API_KEY = 'sim-api-key';

export interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

export async function call(
  sim: Simulator,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; headers?: Record<string, string>; auth?: boolean } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    ...(options.auth === false ? {} : { 'X-Api-Key': API_KEY }),
    ...(options.body !== undefined || options.rawBody !== undefined
      ? { 'content-type': 'application/json' }
      : {}),
    ...options.headers,
  };
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers,
    ...(options.rawBody !== undefined ? { body: options.rawBody } : {}),
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // kept as text: some tests expect a body that is not JSON
  }
  return { status: response.status, body, headers: response.headers };
}

export function externalImageCreate(name: string, overrides: Record<string, unknown> = {}) {
  return {
    name,
    source: 'external_image',
    source_config: { resource_spec: { cpu: 1, memory_mb: 512 } },
    source_revision_config: { image_uri: 'ghcr.io/acme/agent:1.0' },
    secrets: [{ name: 'API_TOKEN', value: 'secret-value' }],
    ...overrides,
  };
}

export function repoHostCreate(name: string, overrides: Record<string, unknown> = {}) {
  return {
    name,
    source: 'repo_host',
    source_config: {
      integration_id: '7d8b6a3c-2f1e-4b5a-9c8d-0e1f2a3b4c5d',
      repo_url: 'https://github.com/acme/agent',
      deployment_type: 'dev',
      build_on_push: true,
      install_command: 'npm ci',
      build_command: 'npm run build',
    },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    secrets: [],
    ...overrides,
  };
}

/** Creates a deployment and returns its id and first revision id. */
export async function createDeployment(sim: Simulator, request: unknown) {
  const answer = await call(sim, 'POST', '/v2/deployments', { body: request });
  if (answer.status !== 201)
    throw new Error(`create answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const body = answer.body as { id: string; latest_revision_id: string };
  return { id: body.id, revisionId: body.latest_revision_id, body: answer.body as Record<string, unknown> };
}

/**
 * A deployment as the platform answers it, with nothing set but what every answer carries; `overrides`
 * replace or add fields (a hostile server's padding, another status).
 */
export function deploymentAnswer(id: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    name: `app-${id}`,
    source: 'external_image',
    source_config: {},
    source_revision_config: {},
    secrets: [],
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    status: 'READY',
    latest_revision_id: null,
    active_revision_id: null,
    ...overrides,
  };
}
