/**
 * The external-resource contract against a scripted client: what is sent, what is left, which refusals
 * read as waiting rather than failing, and ownership: only a recorded id, an accepted adoption or the
 * create guard's evidence makes a deployment this object's.
 */
import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import { FINALIZER } from '../../../api/names.ts';
import { credentialsKey } from '../../../controlplane/credentials.ts';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  ValidationFailedError,
} from '../../../controlplane/errors.ts';
import type { Deployment } from '../../../controlplane/schemas.ts';
import { deletionFactsOf } from '../../../reconcile/agentdeployment/deletion/facts.ts';
import type { FinalDeletionVerdict } from '../../../reconcile/agentdeployment/deletion/verdict.ts';
import type { AgentDeploymentFacts } from '../../../reconcile/agentdeployment/facts.ts';
import { ownership } from '../../../reconcile/agentdeployment/gates/ownership.ts';
import { ownedDeployment, ownershipFactsOf } from '../../../reconcile/agentdeployment/owned.ts';
import { runAgentDeployment } from '../../../reconcile/agentdeployment/program.ts';
import { recordOwned } from '../../../reconcile/agentdeployment/status.ts';
import type { Gate } from '../../../reconcile/agentdeployment/verdict.ts';
import { Stall, Wait } from '../../../runtime/outcome.ts';
import { WriteFenced } from '../../../runtime/write-fence.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass, DeploymentClient } from '../types.ts';
import { externalDeployment as externalOf } from './external.ts';
import { settleDeletion } from './finalize.ts';
import { controllerPort } from './gather.ts';

const deployment = (status: string, id = 'd-1', createdAt = '2026-01-01T00:00:00Z'): Deployment => ({
  id,
  name: 'agent',
  source: 'external_image',
  source_config: { listener_id: 'l-1' },
  source_revision_config: { image_uri: 'registry.local/agent:1' },
  secrets: [],
  created_at: createdAt,
  updated_at: createdAt,
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
    unmatch: () => {},
  },
  claims: () => [],
  now: () => new Date('2026-01-01T00:00:10Z'),
  revisionPollMs: 5_000,
} as unknown as AgentDeploymentDeps;

const TENANT = 'sha256:tenant-now';

function passWith(
  deploymentId?: string,
  status: Record<string, unknown> = {},
  annotations: Record<string, string> = {},
): AgentDeploymentPass {
  const obj = {
    metadata: { name: 'agent', namespace: 'ns', uid: 'u-self', annotations },
    spec: {},
  } as unknown as AgentDeployment;
  return {
    obj,
    spec: obj.spec,
    status: { ...(deploymentId ? { deploymentId } : {}), ...status },
    events: [],
  } as unknown as AgentDeploymentPass;
}

const CREDENTIALS = { baseUrl: 'https://cp.example.com', apiKey: 'test-key' };

/** The facts of a pass whose credentials resolved (tenant TENANT), for the ownership gate. */
function factsOf(d: AgentDeploymentDeps, pass: AgentDeploymentPass): AgentDeploymentFacts {
  const credentials = CREDENTIALS;
  return {
    object: { metadata: pass.obj.metadata, spec: pass.spec, status: pass.status },
    settings: {} as AgentDeploymentFacts['settings'],
    reconcileRequested: false,
    statusKnown: true,
    appliedUnknown: false,
    digestKey: 'k',
    now: d.now(),
    revisionPollMs: d.revisionPollMs,
    prepared: new Set(),
    credentials: { ok: true, credentials, tenant: TENANT, identity: credentialsKey(credentials) },
    claims: { claims: d.claims },
  };
}

/** The external resource, its create guard's lookup judged by the ownership verdict of the pass's facts. */
const externalDeployment = (d: AgentDeploymentDeps, pass: AgentDeploymentPass, client: DeploymentClient) =>
  externalOf(d, pass, client, { credentials: CREDENTIALS, tenant: TENANT }, () =>
    ownershipFactsOf(factsOf(d, pass)),
  );

/**
 * What the decide step takes as this object's: the chain's ownership gate (with a last gate that only
 * reports what it found), gathered by the controller's port; a wait or a stall thrown as the step does.
 */
async function observe(d: AgentDeploymentDeps, pass: AgentDeploymentPass, client: DeploymentClient) {
  const facts = factsOf(d, pass);
  // The last gate ends the chain once ownership let it through (what it found is read below).
  const found: Gate = () => ({ gate: 'converge', kind: 'paused', message: 'found' });
  const port = controllerPort({ ...d, controlPlane: () => client }, pass);
  const verdict = await runAgentDeployment(facts, port, [
    ['ownership', ownership],
    ['converge', found],
  ]);
  if (verdict.kind === 'stall') throw new Stall(verdict.reason, verdict.message);
  if (verdict.kind === 'wait') throw new Wait(verdict.reason, verdict.message, verdict.retryAfterMs);
  return ownedDeployment(facts);
}

/** Deletion as the finalize step runs it (finalize.ts), through this external resource. */
function deleteWith(pass: AgentDeploymentPass, client: DeploymentClient, spec: Record<string, unknown> = {}) {
  const external = externalDeployment(deps, pass, client);
  const deleted = {
    ...pass,
    obj: { ...pass.obj, metadata: { ...pass.obj.metadata, deletionTimestamp: 'x', finalizers: [FINALIZER] } },
    spec: { ...pass.spec, ...spec },
  } as AgentDeploymentPass;
  return settleDeletion(
    deletionFactsOf({ ...deleted.obj, spec: deleted.spec, status: deleted.status }, 'agent', deps.now()),
    async () => ({ ok: true, tenant: TENANT, claimedBy: () => undefined }),
    () => external,
    // As the finalize step takes a deployment the create guard proves this object's.
    (d) => recordOwned(pass.status, d.id, TENANT),
  );
}
const remainingOf = (v: FinalDeletionVerdict) =>
  v.kind === 'wait' && v.why === 'platformDeleting' ? [v.deployment.status] : [];
const eventOf = (v: FinalDeletionVerdict) => ('event' in v ? v.event?.reason : undefined);

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Error & { reason?: string },
  );

describe('delete (as the finalize step drives it)', () => {
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
    const verdict = await deleteWith(passWith('d-1'), client);
    expect(calls).toEqual(expectedCalls);
    expect(remainingOf(verdict)).toEqual(left);
  });

  it('asks for the tracing project only when the spec does', async () => {
    const { client, calls } = scripted(['READY', undefined]);
    await deleteWith(passWith('d-1'), client, { deleteTracingProject: true });
    expect(calls).toContain('DELETE d-1 +tracing');
  });

  it('says deleted only once the deployment is gone', async () => {
    const pass = passWith('d-1');
    const { client } = scripted(['READY', 'AWAITING_DELETE']);
    expect(eventOf(await deleteWith(pass, client))).toBe('Deleting');
    const { client: later } = scripted(['AWAITING_DELETE', undefined]);
    expect(eventOf(await deleteWith(pass, later))).toBe('Deleted');
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
      .create({} as never, async () => {})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Wait);
    expect(err).toMatchObject({ reason: 'WaitingForName', retryAfterMs: 5_000 });
    expect((err as Error).message).toContain('d-old');
  });

  it('a create refused for a name someone took since the lookup is NameConflict, and the mark goes', async () => {
    const { client } = scripted([], {
      createDeployment: async () => {
        throw new BadRequestError('createDeployment', 'A deployment named agent already exists');
      },
      findDeploymentsByName: async () => [deployment('READY', 'd-other', '2026-01-01T00:00:11Z')],
    });
    const pass = passWith();
    const err = await errorOf(externalDeployment(deps, pass, client).create({} as never, async () => {}));
    expect(err).toMatchObject({ name: 'Stall', reason: 'NameConflict' });
    expect(err?.message).toContain('d-other');
    expect(pass.status.createPendingSince).toBeUndefined();
    expect(pass.status.deploymentId).toBeUndefined();
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

  it('behind a closed write fence, no write is sent: not a create, a PATCH, a redeploy or a delete', async () => {
    const sent: string[] = [];
    const record = (what: string) => async () => {
      sent.push(what);
      return deployment('READY');
    };
    const { client } = scripted(['READY'], {
      createDeployment: record('create'),
      patchDeployment: record('patch'),
      redeployRevision: record('redeploy'),
      deleteDeployment: async () => {
        sent.push('delete');
      },
    });
    const fenced = {
      ...deps,
      writeFence: () => {
        throw new WriteFenced('this replica no longer holds ns/agent');
      },
    } as AgentDeploymentDeps;
    const pass = { ...passWith('d-1'), deadline: new AbortController().signal } as AgentDeploymentPass;
    const external = externalDeployment(fenced, pass, client);
    const errors = await Promise.all([
      external.create({} as never, async () => {}).catch((e: unknown) => e),
      external.update('d-1', {}, ['secrets']).catch((e: unknown) => e),
      external.redeploy('d-1', 'r-1', 'a test').catch((e: unknown) => e),
      external.delete('d-1', { deleteTracingProject: false }).catch((e: unknown) => e),
    ]);
    expect(errors.every((e) => e instanceof WriteFenced)).toBe(true);
    expect(sent).toEqual([]);
  });

  it('behind an open write fence, the write runs on a client bounded by the hold', async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const { client } = scripted([]);
    const writer = {
      patchDeployment: async () => deployment('READY'),
    } as unknown as DeploymentClient;
    const open = {
      ...deps,
      writeFence: () => 2_000,
      controlPlane: (_c: unknown, signal?: AbortSignal) => {
        signals.push(signal);
        return writer;
      },
    } as unknown as AgentDeploymentDeps;
    const pass = { ...passWith('d-1'), deadline: new AbortController().signal } as AgentDeploymentPass;
    await externalDeployment(open, pass, client).update('d-1', {}, ['secrets']);
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(false);
  });

  it('a name held only by a deployment being deleted is waited for, never taken', async () => {
    const { client } = scripted([], {
      findDeploymentsByName: async () => [deployment('AWAITING_DELETE', 'd-old', '2026-01-01T00:00:11Z')],
    });
    const pass = passWith(undefined, { createPendingSince: '2026-01-01T00:00:05Z' });
    const err = await errorOf(observe(deps, pass, client));
    expect(err).toMatchObject({ reason: 'WaitingForName' });
    expect(pass.status.deploymentId).toBeUndefined();
  });
});

describe("ownership: what observe takes as this object's", () => {
  const MARK = '2026-01-01T00:00:05Z';
  const before = '2026-01-01T00:00:01Z';
  const after = '2026-01-01T00:00:06Z';
  it.each<[string, Record<string, unknown>, Deployment[], string, string | undefined]>([
    ['nothing of its name: none, create', {}, [], 'none', undefined],
    [
      'a live deployment of its name, no create pending: NameConflict',
      {},
      [deployment('READY', 'd-9', before)],
      'NameConflict',
      undefined,
    ],
    [
      'a create pending, the deployment made after the mark: taken',
      { createPendingSince: MARK },
      [deployment('READY', 'd-9', after)],
      'taken',
      'd-9',
    ],
    [
      'a create pending, the deployment made at the mark: taken',
      { createPendingSince: MARK },
      [deployment('READY', 'd-9', MARK)],
      'taken',
      'd-9',
    ],
    [
      'a create pending, the deployment made before the mark: CreateUnconfirmed',
      { createPendingSince: MARK },
      [deployment('READY', 'd-9', before)],
      'CreateUnconfirmed',
      undefined,
    ],
  ])('%s', async (_, status, found, expected, owned) => {
    const { client, calls } = scripted([], { findDeploymentsByName: async () => found });
    const pass = passWith(undefined, status);
    const result = await observe(deps, pass, client).then(
      (d) => (d ? 'taken' : 'none'),
      (e: { reason?: string }) => e.reason,
    );
    expect(result).toBe(expected);
    expect(pass.status.deploymentId).toBe(owned);
    if (owned) {
      expect(pass.status.credentialsDigest).toBe(TENANT);
      expect(pass.status.createPendingSince).toBeUndefined();
      expect(pass.events.map((e) => e.reason)).toEqual(['Found']);
    }
    expect(calls.filter((c) => !c.startsWith('GET'))).toEqual([]);
  });

  it('a deployment made after the mark that another object claims is not taken', async () => {
    const claimed = {
      ...deps,
      claims: () => [{ key: 'other/obj', uid: 'u-other', deploymentId: 'd-9' }],
    } as unknown as AgentDeploymentDeps;
    const { client } = scripted([], {
      findDeploymentsByName: async () => [deployment('READY', 'd-9', '2026-01-01T00:00:06Z')],
    });
    const pass = passWith(undefined, { createPendingSince: MARK });
    const err = await errorOf(observe(claimed, pass, client));
    expect(err).toMatchObject({ reason: 'NameConflict' });
    expect(err?.message).toContain('other/obj');
    expect(pass.status.deploymentId).toBeUndefined();
  });

  it('the message of a NameConflict names the deployment and how to adopt it', async () => {
    const { client } = scripted([], { findDeploymentsByName: async () => [deployment('READY', 'd-9')] });
    const err = await errorOf(observe(deps, passWith(), client));
    expect(err?.message).toContain('d-9');
    expect(err?.message).toContain('deploy.agents.dev/adopt-deployment-id: d-9');
  });

  it.each<[string, string | undefined, string]>([
    ['the same credentials: created again', TENANT, 'none'],
    ['a record from before digests: created again', undefined, 'none'],
    ['other credentials: CredentialsChanged, nothing created', 'sha256:tenant-then', 'CredentialsChanged'],
  ])('a 404 on the recorded id under %s', async (_, recorded, expected) => {
    const { client } = scripted([undefined]);
    const pass = passWith('d-1', recorded ? { credentialsDigest: recorded } : {});
    const result = await observe(deps, pass, client).then(
      (d) => (d ? 'found' : 'none'),
      (e: { reason?: string }) => e.reason,
    );
    expect(result).toBe(expected);
    if (expected === 'CredentialsChanged') expect(pass.status.deploymentId).toBe('d-1');
  });

  it("a recorded deployment found under changed credentials stays this object's, its digest kept", async () => {
    const { client } = scripted(['READY']);
    const pass = passWith('d-1', { credentialsDigest: 'sha256:tenant-then' });
    expect((await observe(deps, pass, client))?.id).toBe('d-1');
    expect(pass.status.credentialsDigest).toBe('sha256:tenant-then');
  });

  it('an adoption of a deployment of another name is refused and recorded nowhere', async () => {
    const { client } = scripted([], {
      getDeployment: async (id: string) => ({ ...deployment('READY', id), name: 'someone-else' }),
    });
    const pass = passWith(undefined, {}, { 'deploy.agents.dev/adopt-deployment-id': 'd-7' });
    const err = await errorOf(observe(deps, pass, client));
    expect(err).toMatchObject({ reason: 'AdoptionFailed' });
    expect(err?.message).toContain('someone-else');
    expect(pass.status.deploymentId).toBeUndefined();
  });

  it('an accepted adoption records the id and the credentials digest', async () => {
    const { client } = scripted(['READY']);
    const pass = passWith(undefined, {}, { 'deploy.agents.dev/adopt-deployment-id': 'd-1' });
    expect((await observe(deps, pass, client))?.id).toBe('d-1');
    expect(pass.status).toMatchObject({ deploymentId: 'd-1', credentialsDigest: TENANT });
  });
});

describe('ownership: the create guard', () => {
  const created = deployment('DEPLOYING', 'd-new', '2026-01-01T00:00:10Z');

  it('the mark is durable before the POST; the id and digest are recorded when it answers', async () => {
    const pass = passWith();
    const seen: string[] = [];
    const persisted: Record<string, unknown>[] = [];
    const { client } = scripted([], {
      createDeployment: async () => {
        seen.push(`POST with ${persisted.length} write(s) made`);
        return created;
      },
    });
    await externalDeployment(deps, pass, client).create({} as never, async () => {
      persisted.push(structuredClone(pass.status));
    });
    expect(seen).toEqual(['POST with 1 write(s) made']);
    expect(persisted).toEqual([{ createPendingSince: '2026-01-01T00:00:10.000Z' }]);
    expect(pass.status).toEqual({ deploymentId: 'd-new', credentialsDigest: TENANT });
  });

  it('a failed write of the id leaves the mark, so the next pass takes the deployment: no second POST', async () => {
    let stored: Record<string, unknown> = {};
    let posts = 0;
    const platform: Deployment[] = [];
    const { client } = scripted([], {
      createDeployment: async () => {
        posts += 1;
        platform.push(created);
        return created;
      },
      findDeploymentsByName: async () => platform,
    });
    const first = passWith();
    await externalDeployment(deps, first, client).create({} as never, async () => {
      stored = structuredClone(first.status);
    });
    // The status write after the POST fails (API server unavailable): what is stored is the mark alone.
    expect(stored).toEqual({ createPendingSince: '2026-01-01T00:00:10.000Z' });
    const next = passWith(undefined, stored);
    expect((await observe(deps, next, client))?.id).toBe('d-new');
    expect(next.status).toMatchObject({ deploymentId: 'd-new', credentialsDigest: TENANT });
    expect(next.status.createPendingSince).toBeUndefined();
    expect(posts).toBe(1);
  });

  it('a POST without an answer keeps the mark; the retry refused for the name takes the late commit', async () => {
    const pass = passWith(undefined, { createPendingSince: '2026-01-01T00:00:05Z' });
    const { client } = scripted([], {
      createDeployment: async () => {
        throw new BadRequestError('createDeployment', 'A deployment named agent already exists');
      },
      findDeploymentsByName: async () => [deployment('DEPLOYING', 'd-late', '2026-01-01T00:00:06Z')],
    });
    const got = await externalDeployment(deps, pass, client).create({} as never, async () => {});
    expect(got.id).toBe('d-late');
    expect(pass.status).toMatchObject({ deploymentId: 'd-late' });
    expect(pass.status.createPendingSince).toBeUndefined();
  });

  it('a refusal with a fresh mark (422) clears it: nothing was made', async () => {
    const pass = passWith();
    const { client } = scripted([], {
      createDeployment: async () => {
        throw new ValidationFailedError('createDeployment', [
          { loc: ['body', 'listener_id'], msg: 'invalid', type: 'x' },
        ]);
      },
    });
    const err = await errorOf(externalDeployment(deps, pass, client).create({} as never, async () => {}));
    expect(err).toBeInstanceOf(ValidationFailedError);
    expect(pass.status.createPendingSince).toBeUndefined();
  });
});

describe('ownership: delete', () => {
  it('an object that owns nothing sends nothing, not even a lookup', async () => {
    const { client, calls } = scripted([], {
      findDeploymentsByName: async () => [deployment('READY', 'd-theirs')],
    });
    expect(await deleteWith(passWith(), client)).toMatchObject({ kind: 'release', how: 'orphaned' });
    expect(calls).toEqual([]);
  });

  it.each<[string, string, string[]]>([
    ['made after the mark: its own, deleted', '2026-01-01T00:00:06Z', ['GET d-9', 'DELETE d-9', 'GET d-9']],
    ['made before the mark: left alone', '2026-01-01T00:00:01Z', []],
  ])('a create pending at deletion, the deployment %s', async (_, createdAt, expected) => {
    const { client, calls } = scripted(['READY', undefined], {
      findDeploymentsByName: async () => [deployment('READY', 'd-9', createdAt)],
    });
    const pass = passWith(undefined, { createPendingSince: '2026-01-01T00:00:05Z' });
    await deleteWith(pass, client);
    expect(calls).toEqual(expected);
  });

  it('a recorded id missing under other credentials is CredentialsChanged, not gone', async () => {
    const { client } = scripted([undefined]);
    const pass = passWith('d-1', { credentialsDigest: 'sha256:tenant-then' });
    const verdict = await deleteWith(pass, client);
    expect(verdict).toMatchObject({ kind: 'stall', reason: 'CredentialsChanged' });
    expect(verdict.kind === 'stall' && verdict.message).toContain('d-1');
  });
});

describe('the revision read (gather only reads)', () => {
  it("changes neither the pass's status nor the facts': what it shows is the facts' to learn", async () => {
    const { client, calls } = scripted(['DEPLOYING'], {
      async getRevision(_id: string, revisionId: string) {
        calls.push(`GET revision ${revisionId}`);
        return { id: revisionId, status: 'DEPLOYING', created_at: 'x', updated_at: 'x' };
      },
    } as Partial<DeploymentClient>);
    const pass = passWith('d-1', { credentialsDigest: TENANT });
    const facts = factsOf(deps, pass);
    facts.recorded = { ...deployment('DEPLOYING'), active_revision_id: 'r-0' };
    const before = JSON.stringify(pass.status);
    await controllerPort({ ...deps, controlPlane: () => client }, pass).read('revision', facts);
    expect(calls).toEqual(['GET revision r-1']);
    expect(facts.followed?.revision).toMatchObject({ id: 'r-1', status: 'DEPLOYING' });
    expect(JSON.stringify(pass.status)).toBe(before);
    expect(JSON.stringify(facts.object.status)).toBe(before);
  });
});
