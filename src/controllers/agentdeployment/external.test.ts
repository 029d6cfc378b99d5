/**
 * The external-resource contract's deletion and refusal paths against a scripted client: what is sent,
 * what is left, and which refusals read as waiting rather than failing.
 */
import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../../controlplane/errors.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import { Wait } from '../../runtime/outcome.ts';
import { externalDeployment } from './external.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass, DeploymentClient } from './types.ts';

const deployment = (status: string, id = 'd-1'): Deployment => ({
  id,
  name: 'agent',
  source: 'external_image',
  source_config: { listener_id: 'l-1' },
  source_revision_config: { image_uri: 'registry.local/agent:1' },
  secrets: [],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status,
  latest_revision_id: 'r-1',
  active_revision_id: 'r-1',
});

/** A client whose GET answers the statuses given in turn (undefined: 404), recording every call. */
function scripted(gets: (string | undefined)[], overrides: Partial<DeploymentClient> = {}) {
  const calls: string[] = [];
  const client = {
    async getDeployment(id: string) {
      calls.push(`GET ${id}`);
      const status = gets.shift();
      if (status === undefined) throw new NotFoundError('getDeployment', 'not found');
      return deployment(status, id);
    },
    async deleteDeployment(id: string, opts: { deleteTracingProject?: boolean } = {}) {
      calls.push(`DELETE ${id}${opts.deleteTracingProject ? ' +tracing' : ''}`);
    },
    async findDeploymentsByName() {
      calls.push('LIST');
      return [];
    },
    ...overrides,
  } as unknown as DeploymentClient;
  return { client, calls };
}

const deps = {
  observer: {
    fresh: () => undefined,
    remember: () => {},
    forget: () => {},
    track: () => {},
    untrack: () => {},
  },
  now: () => new Date('2026-01-01T00:00:10Z'),
  revisionPollMs: 5_000,
} as unknown as AgentDeploymentDeps;

function passWith(deploymentId?: string): AgentDeploymentPass {
  const obj = { metadata: { name: 'agent', namespace: 'ns' }, spec: {} } as unknown as AgentDeployment;
  return {
    obj,
    spec: obj.spec,
    status: deploymentId ? { deploymentId } : {},
    events: [],
  } as unknown as AgentDeploymentPass;
}

describe('delete', () => {
  it.each<[string, (string | undefined)[], string[], string[]]>([
    ['already gone: nothing sent', [undefined], ['GET d-1'], []],
    ['gone at once after DELETE', ['READY', undefined], ['GET d-1', 'DELETE d-1', 'GET d-1'], []],
    [
      'the platform deletes asynchronously: left, with its state',
      ['READY', 'AWAITING_DELETE'],
      ['GET d-1', 'DELETE d-1', 'GET d-1'],
      ['AWAITING_DELETE'],
    ],
    [
      'already deleting: not asked again',
      ['AWAITING_FINAL_DELETE', 'AWAITING_FINAL_DELETE'],
      ['GET d-1', 'GET d-1'],
      ['AWAITING_FINAL_DELETE'],
    ],
  ])('%s', async (_, gets, expectedCalls, left) => {
    const { client, calls } = scripted(gets);
    const remaining = await externalDeployment(deps, passWith('d-1'), client).delete({
      mayHaveCreated: true,
    });
    expect(calls).toEqual(expectedCalls);
    expect(remaining.map((d) => d.status)).toEqual(left);
  });

  it('asks for the tracing project only when the spec does', async () => {
    const { client, calls } = scripted(['READY', undefined]);
    await externalDeployment(deps, passWith('d-1'), client).delete({
      mayHaveCreated: true,
      deleteTracingProject: true,
    });
    expect(calls).toContain('DELETE d-1 +tracing');
  });

  it('says deleted only once the deployment is gone', async () => {
    const pass = passWith('d-1');
    const { client } = scripted(['READY', 'AWAITING_DELETE']);
    await externalDeployment(deps, pass, client).delete({ mayHaveCreated: true });
    expect(pass.events.map((e) => e.reason)).toEqual(['Deleting']);
    const { client: later } = scripted(['AWAITING_DELETE', undefined]);
    await externalDeployment(deps, pass, later).delete({ mayHaveCreated: true });
    expect(pass.events.map((e) => e.reason)).toEqual(['Deleting', 'Deleted']);
  });
});

describe('refusals that mean "wait"', () => {
  it('a create refused for a name a deleting deployment holds waits for the name', async () => {
    const { client } = scripted([], {
      createDeployment: async () => {
        throw new BadRequestError('createDeployment', 'A deployment named agent already exists');
      },
      findDeploymentsByName: async () => [deployment('AWAITING_DELETE', 'd-old')],
    });
    const err = await externalDeployment(deps, passWith(), client)
      .create({} as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Wait);
    expect(err).toMatchObject({ reason: 'WaitingForName', retryAfterMs: 5_000 });
    expect((err as Error).message).toContain('d-old');
  });

  it('a create refused for a name a live deployment holds stalls for a person to settle', async () => {
    const { client } = scripted([], {
      createDeployment: async () => {
        throw new BadRequestError('createDeployment', 'A deployment named agent already exists');
      },
      findDeploymentsByName: async () => [deployment('READY', 'd-other')],
    });
    const err = await externalDeployment(deps, passWith(), client)
      .create({} as never)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'Stall', reason: 'Rejected' });
  });

  it.each([
    ['AWAITING_DELETE', 'Wait'],
    ['READY', 'ConflictError'],
  ])('a PATCH refused with 409 while the deployment is %s: %s', async (status, errorName) => {
    const { client } = scripted([status], {
      patchDeployment: async () => {
        throw new ConflictError('patchDeployment', 'Deployment d-1 is being deleted');
      },
    });
    const err = await externalDeployment(deps, passWith('d-1'), client)
      .update('d-1', {}, ['secrets'])
      .catch((e: unknown) => e);
    expect((err as Error).constructor.name).toBe(errorName);
  });

  it('the name lookup after a lost status never takes a deployment being deleted for its own', async () => {
    const { client } = scripted([], {
      findDeploymentsByName: async () => [deployment('AWAITING_DELETE', 'd-old')],
    });
    const pass = passWith();
    expect(await externalDeployment(deps, pass, client).observe({ mayHaveCreated: true })).toBeUndefined();
    expect(pass.status.deploymentId).toBeUndefined();
  });
});
