/**
 * The whole AgentDeployment pass as a decision table, without a cluster: the real reconciler and steps,
 * the real control-plane client against the simulator over HTTP, and Kubernetes replaced by an
 * in-memory object whose status, finalizers and events the table reads. Each row is one step of the
 * DEVELOPMENT.md's "How a reconcile decides": the state before a pass, then what that pass sent to the control
 * plane, which conditions it left, which events it recorded and whether it wrote status.
 */

import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentDeployment, AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import { Annotation, FINALIZER } from '../../api/names.ts';
import { credentialsKey } from '../../controlplane/credentials.ts';
import { ControlPlanePools } from '../../controlplane/pools.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import { tenantDigest } from '../../controlplane/tenant.ts';
import { ClaimIndex } from '../../reconcile/agentdeployment/claim-index.ts';
import { LATE_COMMIT_WINDOW_MS } from '../../reconcile/agentdeployment/deletion/facts.ts';
import { findCondition } from '../../runtime/conditions.ts';
import type { ReconcileResult } from '../../runtime/controller.ts';
import { objectKey } from '../../runtime/keys.ts';
import type { PendingEvent } from '../../runtime/reconcile-shell.ts';
import { statusMergePatch } from '../../runtime/status-patch.ts';
import { DEFAULT_API_KEY, defaultListeners, type Simulator, startSimulator } from '../../simulator/index.ts';
import { defaultHostAllowList, parseHostAllowList } from '../../verification/host-allow-list.ts';
import { Verifier } from '../../verification/verifier.ts';
import { agentDeploymentReconciler, READY_RESYNC_FACTOR, readyResyncMs } from './reconciler.ts';

const LISTENER = defaultListeners()[0]?.id as string;
const KEY = 'team-a/agent';
const POLL_MS = 60_000;
const REVISION_POLL_MS = 5_000;
const RECONCILE_RATE = 50;
const silent = pino({ level: 'silent' });

/** What one pass did, in the table's words. */
interface PassRecord {
  /** Control-plane calls, short: create, list, get, patch, delete, revision, redeploy. */
  calls: string[];
  statusWrites: number;
  /** `Type/Reason` of each event. */
  events: string[];
  result?: ReconcileResult;
  error?: unknown;
}

/** The cluster side of one object, in memory: the "cache", status writes, finalizers and events. */
interface World {
  obj: AgentDeployment;
  /** True once the finalizer came off a deleted object (the API server would drop it). */
  gone: boolean;
  secrets: Map<string, Record<string, string>>;
  events: PendingEvent[];
  statusWrites: AgentDeploymentStatus[];
  clockMs: number;
  pass(): Promise<PassRecord>;
  /** Changes the object as a `kubectl apply` would: a new generation. */
  edit(change: (obj: AgentDeployment) => void): void;
}

let sim: Simulator;
/** One set of pools per world: a Retry-After pauses a credential, and must not leak into the next row. */
const openPools: ControlPlanePools[] = [];

beforeAll(async () => {
  // Revisions move only when a row says so: an hour per simulated step.
  sim = await startSimulator({ revisionStepMs: 3_600_000 });
});
afterAll(() => sim.close());
afterEach(async () => {
  await Promise.all(openPools.splice(0).map((p) => p.close()));
});
beforeEach(() => {
  sim.clearFaults();
  sim.holdDeletions(false);
  for (const d of sim.deployments()) sim.deleteDeploymentBehindOperator(d.id);
});

const CALL_NAMES: Record<string, string> = {
  'POST /v2/deployments': 'create',
  'GET /v2/deployments': 'list',
  'GET /v2/deployments/{deployment_id}': 'get',
  'PATCH /v2/deployments/{deployment_id}': 'patch',
  'DELETE /v2/deployments/{deployment_id}': 'delete',
  'GET /v2/deployments/{deployment_id}/revisions/{revision_id}': 'revision',
  'POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy': 'redeploy',
};

const AGENT_SERVER_PREFIX = '/deployments/{deployment_id}';

/** A control-plane call by its short name; an agent-server call as `agent METHOD route`. */
function callName(r: { method: string; route: string; path: string }): string {
  if (r.route.startsWith(AGENT_SERVER_PREFIX)) {
    return `agent ${r.method} ${r.route.slice(AGENT_SERVER_PREFIX.length)}`;
  }
  return CALL_NAMES[`${r.method} ${r.route}`] ?? `${r.method} ${r.path}`;
}

function agent(spec: Partial<AgentDeployment['spec']> = {}): AgentDeployment {
  return {
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name: 'agent', namespace: 'team-a', uid: 'uid-agent', generation: 1 },
    spec: {
      source: 'external_image',
      sourceConfig: { listenerId: LISTENER, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
      sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
      secrets: [{ name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'agent-secrets', key: 'token' } } }],
      ...spec,
    } as AgentDeployment['spec'],
  };
}

function world(
  obj: AgentDeployment = agent(),
  options: {
    verifier?: Verifier;
    analyst?: import('./types.ts').AgentDeploymentDeps['analyst'];
    others?: AgentDeployment[];
    /** Objects the cache delivers only with the pass's own create mark (created concurrently). */
    arriving?: AgentDeployment[];
    defaultCredentialsAllowed?: boolean;
    /** Keep what passes saw (a create's answer) as the batched observer does, fresh for ever. */
    snapshots?: boolean;
    /** The objects the replica holds (its queue's keys); default 1. */
    heldObjects?: number;
  } = {},
): World {
  const snapshots = new Map<string, Deployment>();
  // Every object here reaches the one tenant of the controller's credentials.
  const cached = new Map<string, AgentDeployment>();
  const claims = new ClaimIndex(
    () => ({
      tenant: tenantDigest({ baseUrl: sim.url }),
      identity: credentialsKey({ baseUrl: sim.url, apiKey: DEFAULT_API_KEY }),
    }),
    cached,
  );
  // As the informer does: the cache holds the new version, the index is told the one it replaces.
  const cache = (other: AgentDeployment) => {
    const key = objectKey(other);
    claims.set(other, cached.get(key));
    cached.set(key, other);
  };
  for (const other of options.others ?? []) cache(other);
  // Passes here fail on purpose many times in a row: no circuit breaker parks the credential.
  const pools = new ControlPlanePools({ clientDefaults: { getRetries: 0 }, breaker: { threshold: 1_000 } });
  openPools.push(pools);
  const w: World = {
    obj,
    gone: false,
    secrets: new Map([['agent-secrets', { token: Buffer.from('t0ken').toString('base64') }]]),
    events: [],
    statusWrites: [],
    clockMs: Date.now(),
    async pass() {
      sim.resetRequests();
      const writesBefore = w.statusWrites.length;
      const eventsBefore = w.events.length;
      const record: PassRecord = { calls: [], statusWrites: 0, events: [] };
      try {
        const signal = new AbortController().signal;
        record.result = await reconcile(KEY, { signal, deadline: signal, log: silent });
      } catch (err) {
        record.error = err;
      }
      record.calls = sim.requests().map(callName);
      record.statusWrites = w.statusWrites.length - writesBefore;
      record.events = w.events.slice(eventsBefore).map((e) => `${e.type}/${e.reason}`);
      return record;
    },
    edit(change) {
      change(w.obj);
      w.obj.metadata.generation = (w.obj.metadata.generation ?? 0) + 1;
    },
  };
  const reconcile = agentDeploymentReconciler({
    getObject: () => (w.gone ? undefined : w.obj),
    readSecret: async (_namespace, name) => w.secrets.get(name),
    // As the API server does: the merge patch from the status the caller had to the one it wants,
    // applied to what is stored.
    writeStatus: async (obj, status) => {
      w.statusWrites.push(structuredClone(status));
      const patch = statusMergePatch(obj.status ?? {}, status);
      w.obj = { ...w.obj, status: applyMergePatch(w.obj.status ?? {}, patch) };
      return w.obj;
    },
    addFinalizer: async () => {
      w.obj.metadata.finalizers = [...(w.obj.metadata.finalizers ?? []), FINALIZER];
      return w.obj;
    },
    removeFinalizer: async () => {
      w.obj.metadata.finalizers = (w.obj.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
      if (w.obj.metadata.deletionTimestamp) w.gone = true;
    },
    recordEvent: (_obj, event) => w.events.push(event),
    controlPlane: (credentials) => pools.clientFor(credentials),
    claims: (query) => claims.claims(query),
    cacheShows: async () => {
      for (const other of options.arriving ?? []) cache(other);
      return true;
    },
    defaultCredentialsScope: (namespace) =>
      options.defaultCredentialsAllowed === false
        ? { allowed: false, message: `namespace ${namespace} may not use the controller's credentials` }
        : { allowed: true },
    windowPolicies: () => [],
    windowHolds: () => {},
    // The in-use finalizer on credentials Secrets is the API server's business: test/credentials.test.ts.
    protectCredentials: async () => {},
    releaseCredentials: async () => {},
    // No batched snapshot: every pass observes with one GET, so the table sees each read.
    observer: {
      fresh: (_identity, id) => snapshots.get(id),
      remember: (_identity, d) => {
        if (options.snapshots) snapshots.set(d.id, d);
      },
      forget: (_identity, id) => snapshots.delete(id),
      track: () => {},
      untrack: () => {},
      unmatch: () => {},
    },
    defaultCredentials: { baseUrl: sim.url, apiKey: DEFAULT_API_KEY },
    digestKey: 'digest-key-for-tests',
    pollIntervalMs: POLL_MS,
    revisionPollMs: REVISION_POLL_MS,
    reconcileRate: RECONCILE_RATE,
    heldObjects: () => options.heldObjects ?? 1,
    verifier: options.verifier ?? {
      step: () => Promise.reject(new Error('no verification in this row')),
      forget: () => {},
    },
    analyst: options.analyst ?? {
      measure: () => Promise.reject(new Error('no analysis in this row')),
      counted: () => {},
    },
    now: () => new Date(w.clockMs),
  });
  return w;
}

const condition = (w: World, type: string) => w.obj.status?.conditions?.find((c) => c.type === type);

/** `Type=Status/Reason` for the conditions that are True, and Ready whatever its status. */
function conditions(w: World): string[] {
  return (w.obj.status?.conditions ?? [])
    .filter((c) => c.type === 'Ready' || c.status === 'True')
    .map((c) => `${c.type}=${c.status}/${c.reason}`)
    .sort();
}

/** The object's deployment on the simulator (the one it records). */
function deploymentOf(w: World) {
  const id = w.obj.status?.deploymentId;
  const found = sim.deployments().find((d) => d.id === id);
  if (!found) throw new Error(`no deployment ${id} on the simulator`);
  return found;
}

function deployLatest(w: World, status = 'DEPLOYED') {
  const d = deploymentOf(w);
  sim.setRevisionStatus(d.id, d.latest_revision_id as string, status);
}

/** A world whose object was created and whose first revision is DEPLOYED, before a pass sees it. */
async function createdAndDeployed(w: World): Promise<World> {
  await w.pass();
  deployLatest(w);
  return w;
}

/** A world whose object was created and whose first revision is DEPLOYED and seen Ready. */
async function readyWorld(obj: AgentDeployment = agent()): Promise<World> {
  const w = world(obj);
  await w.pass();
  deployLatest(w);
  await w.pass();
  expect(conditions(w)).toEqual(['Ready=True/Succeeded']);
  return w;
}

interface Row {
  name: string;
  /** Brings the world to the state before the pass under test. */
  given: () => Promise<World> | World;
  calls: string[];
  conditions: string[];
  events: string[];
  /** Status writes of the pass: a create writes its pending mark before the POST, then the result. */
  statusWrites: number;
  /** Extra checks on the world after the pass. */
  also?: (w: World, pass: PassRecord) => void;
}

const rows: Row[] = [
  // 1. Deleted.
  {
    name: 'deleted, policy Delete: one DELETE; the platform deletes asynchronously, so the finalizer stays',
    given: async () => {
      const w = await readyWorld();
      sim.holdDeletions(true);
      w.obj.metadata.deletionTimestamp = new Date(w.clockMs);
      return w;
    },
    calls: ['get', 'delete', 'get'],
    conditions: ['Ready=False/Deleting', 'Reconciling=True/Deleting'],
    events: ['Normal/Deleting'],
    statusWrites: 1,
    also: (w) => expect(w.obj.metadata.finalizers).toContain(FINALIZER),
  },
  {
    name: 'deleted, policy Delete, the platform still deleting: no second DELETE',
    given: async () => {
      const w = await readyWorld();
      sim.holdDeletions(true);
      w.obj.metadata.deletionTimestamp = new Date(w.clockMs);
      await w.pass();
      return w;
    },
    calls: ['get', 'get'],
    conditions: ['Ready=False/Deleting', 'Reconciling=True/Deleting'],
    events: [],
    statusWrites: 0,
  },
  {
    name: 'deleted, policy Delete, deployment gone: finalizer removed, no status write',
    given: async () => {
      const w = await readyWorld();
      sim.holdDeletions(true);
      w.obj.metadata.deletionTimestamp = new Date(w.clockMs);
      await w.pass();
      sim.deleteDeploymentBehindOperator(deploymentOf(w).id);
      return w;
    },
    calls: ['get'],
    conditions: ['Ready=False/Deleting', 'Reconciling=True/Deleting'],
    events: [],
    statusWrites: 0,
    also: (w) => expect(w.gone).toBe(true),
  },
  {
    name: 'deleted, policy Orphan: nothing sent, finalizer removed',
    given: async () => {
      const w = await readyWorld(agent({ deletionPolicy: 'Orphan' }));
      w.obj.metadata.deletionTimestamp = new Date(w.clockMs);
      return w;
    },
    calls: [],
    conditions: ['Ready=True/Succeeded'],
    events: ['Normal/Orphaned'],
    statusWrites: 0,
    also: (w) => {
      expect(w.gone).toBe(true);
      expect(sim.deployments()).toHaveLength(1);
    },
  },
  {
    name: 'deleted, the DELETE fails: DeleteFailed, finalizer kept, retried with backoff',
    given: async () => {
      const w = await readyWorld();
      sim.addFault({ method: 'DELETE', status: 500 });
      w.obj.metadata.deletionTimestamp = new Date(w.clockMs);
      return w;
    },
    calls: ['get', 'delete'],
    // Transient: Ready keeps what was last known; Reconciling says why the pass failed.
    conditions: ['Ready=True/Succeeded', 'Reconciling=True/DeleteFailed'],
    events: ['Warning/DeleteFailed'],
    statusWrites: 1,
    also: (w, pass) => {
      expect(pass.error).toBeInstanceOf(Error);
      expect(w.obj.metadata.finalizers).toContain(FINALIZER);
    },
  },
  {
    // The chain's holdWhileStalled does not run for a deleted object: the wait replaces the held stall
    // (it once stayed showing under a transient retry, while `kubectl agd plan --prune` said the wait).
    name: 'deleted, held Rejected, its namespace no longer allowed the default credentials: waits, nothing sent, the stall gone',
    given: async () => {
      const scope = { defaultCredentialsAllowed: true };
      const w = world(agent(), scope);
      await w.pass();
      deployLatest(w);
      await w.pass();
      const at = new Date(w.clockMs).toISOString();
      const held = { status: 'True', reason: 'Rejected', message: 'refused', observedGeneration: 1 } as const;
      w.obj.status = {
        ...w.obj.status,
        conditions: [
          { type: 'Ready', ...held, status: 'False', lastTransitionTime: at },
          { type: 'Stalled', ...held, lastTransitionTime: at },
        ],
      };
      scope.defaultCredentialsAllowed = false;
      w.obj.metadata.deletionTimestamp = new Date(w.clockMs);
      return w;
    },
    calls: [],
    conditions: ['Ready=False/DefaultCredentialsNotAllowed', 'Reconciling=True/DefaultCredentialsNotAllowed'],
    events: ['Warning/DefaultCredentialsNotAllowed'],
    statusWrites: 1,
    also: (w, pass) => {
      expect(pass.error).toBeUndefined();
      expect(w.gone).toBe(false);
      expect(w.obj.metadata.finalizers).toContain(FINALIZER);
    },
  },
  {
    name: 'deleted with a create unanswered and nothing of its name yet: the finalizer waits out a late commit',
    given: () => deletedWhileCreating(1_000),
    calls: ['list'],
    conditions: ['Ready=False/Deleting', 'Reconciling=True/Deleting'],
    events: ['Warning/Deleting'],
    statusWrites: 1,
    also: (w, pass) => {
      expect(w.gone).toBe(false);
      expect(pass.result?.requeueAfterMs).toBe(LATE_COMMIT_WINDOW_MS - 1_000);
    },
  },
  {
    name: 'deleted with a create unanswered, past the late-commit window: nothing there, finalizer removed',
    given: () => deletedWhileCreating(LATE_COMMIT_WINDOW_MS + 1_000),
    calls: ['list'],
    conditions: [],
    events: ['Normal/Orphaned'],
    statusWrites: 0,
    also: (w) => expect(w.gone).toBe(true),
  },
  {
    name: 'deleted with a create unanswered that committed late: that deployment is found and deleted',
    given: async () => {
      const w = deletedWhileCreating(1_000);
      await createElsewhere('agent');
      return w;
    },
    calls: ['list', 'get', 'delete', 'get'],
    conditions: ['Ready=False/Deleting', 'Reconciling=True/Deleting'],
    events: ['Normal/Found', 'Normal/Deleting'],
    statusWrites: 1,
    also: (w) => {
      expect(w.obj.status?.deploymentId).toBe(sim.deployments()[0]?.id);
      expect(sim.requests({ method: 'DELETE' })).toHaveLength(1);
    },
  },
  {
    name: 'deleted before the finalizer went on: nothing to release, nothing sent',
    given: () => {
      const w = world();
      w.obj.metadata.deletionTimestamp = new Date(w.clockMs);
      return w;
    },
    calls: [],
    conditions: [],
    events: [],
    statusWrites: 0,
    also: (w) => expect(w.gone).toBe(false),
  },
  // 2. Paused, and annotations out of bounds.
  {
    name: 'paused: nothing called, Paused, observedGeneration not moved',
    given: async () => {
      const w = await readyWorld();
      w.edit((o) => {
        o.metadata.annotations = { [Annotation.Paused]: 'true' };
        o.spec.sourceRevisionConfig = { imageUri: 'registry.example.com/agent:2' };
      });
      return w;
    },
    calls: [],
    conditions: ['Paused=True/Paused', 'Ready=True/Succeeded'],
    events: [],
    statusWrites: 1,
    also: (w) => expect(w.obj.status?.observedGeneration).toBe(1),
  },
  {
    name: 'poll-interval out of bounds: Stalled InvalidAnnotation, nothing called',
    given: () => {
      const w = world();
      w.obj.metadata.annotations = { [Annotation.PollInterval]: '1ms' };
      return w;
    },
    calls: [],
    conditions: ['Ready=False/InvalidAnnotation', 'Stalled=True/InvalidAnnotation'],
    events: ['Warning/InvalidAnnotation'],
    statusWrites: 1,
    also: (w) => expect(w.obj.metadata.finalizers ?? []).not.toContain(FINALIZER),
  },
  {
    name: 'a namespace not allowed the default credentials: Stalled, no finalizer, nothing called',
    given: () => world(agent(), { defaultCredentialsAllowed: false }),
    calls: [],
    conditions: ['Ready=False/DefaultCredentialsNotAllowed', 'Stalled=True/DefaultCredentialsNotAllowed'],
    events: ['Warning/DefaultCredentialsNotAllowed'],
    statusWrites: 1,
    also: (w) => expect(w.obj.metadata.finalizers ?? []).not.toContain(FINALIZER),
  },
  // 3. Sticky stalls hold until the object changes or a reconcile is requested.
  {
    name: 'a name held by a deployment made elsewhere, same generation: nothing adopted, nothing sent',
    given: () => nameTakenWorld(),
    calls: ['list'],
    conditions: ['Ready=False/NameConflict', 'Stalled=True/NameConflict'],
    events: [],
    statusWrites: 0,
  },
  {
    name: 'a name held elsewhere, reconcile requested: looked up again, still not taken over',
    given: async () => {
      const w = await nameTakenWorld();
      w.obj.metadata.annotations = { [Annotation.ReconcileRequestedAt]: 'now' };
      return w;
    },
    calls: ['list'],
    conditions: ['Ready=False/NameConflict', 'Stalled=True/NameConflict'],
    events: [],
    statusWrites: 1,
    also: () => expect(sim.requests({ method: 'PATCH' })).toEqual([]),
  },
  {
    name: 'a name held elsewhere, new generation with another name: created',
    given: async () => {
      const w = await nameTakenWorld();
      w.edit((o) => {
        o.spec.name = 'agent-2';
      });
      return w;
    },
    calls: ['list', 'create'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/Created'],
    statusWrites: 2,
  },
  // 4. The finalizer goes on before anything is created; 5. credentials and secrets.
  {
    name: 'new object: finalizer first, name looked up, pending mark, one POST, id recorded at once',
    given: () => world(),
    calls: ['list', 'create'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/Created'],
    statusWrites: 2,
    also: (w) => {
      expect(w.obj.metadata.finalizers).toEqual([FINALIZER]);
      expect(w.obj.status?.deploymentId).toBe(sim.deployments()[0]?.id);
      expect(w.obj.status?.secretsDigest).toMatch(/\S/);
      // The mark written before the POST is gone from what is stored once the id is recorded.
      expect(w.obj.status?.createPendingSince).toBeUndefined();
    },
  },
  {
    name: 'an older object of the same name shows up with the mark: stands down before the POST, mark cleared',
    given: () => twinWorld({ self: '2026-01-01T00:00:00Z', twin: '2020-01-01T00:00:00Z' }),
    calls: ['list'],
    conditions: ['Ready=False/NameConflict', 'Stalled=True/NameConflict'],
    events: ['Warning/NameConflict'],
    statusWrites: 2,
    also: (w) => {
      expect(sim.deployments()).toEqual([]);
      expect(w.obj.status?.createPendingSince).toBeUndefined();
      expect(findCondition(w.obj.status?.conditions, 'Stalled')?.message).toContain(
        'also being created by team-a/twin',
      );
    },
  },
  {
    name: 'a younger object of the same name shows up with the mark: created all the same',
    given: () => twinWorld({ self: '2020-01-01T00:00:00Z', twin: '2099-01-01T00:00:00Z' }),
    calls: ['list', 'create'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/Created'],
    statusWrites: 2,
  },
  {
    name: 'a referenced Secret is missing: WaitingForSecret, nothing created',
    given: () => {
      const w = world();
      w.secrets.clear();
      return w;
    },
    calls: [],
    conditions: ['Ready=False/WaitingForSecret', 'Reconciling=True/WaitingForSecret'],
    events: ['Warning/WaitingForSecret'],
    statusWrites: 1,
    also: (w) => expect(w.obj.metadata.finalizers).toEqual([FINALIZER]),
  },
  {
    name: 'the credentials Secret is missing: WaitingForCredentials, nothing created',
    given: () => world(agent({ credentialsSecretRef: { name: 'tenant-credentials' } })),
    calls: [],
    conditions: ['Ready=False/WaitingForCredentials', 'Reconciling=True/WaitingForCredentials'],
    events: ['Warning/WaitingForCredentials'],
    statusWrites: 1,
  },
  // 6. Observe: adoption, the name lookup after a lost status, a recorded deployment that is gone.
  {
    name: 'adopt annotation names an existing deployment: adopted, secrets taken as current, no write',
    given: async () => {
      const id = await createElsewhere('agent');
      const w = world();
      w.obj.metadata.annotations = { [Annotation.AdoptDeploymentId]: id };
      return w;
    },
    calls: ['get', 'revision'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/Adopted', 'Normal/SecretsTakenAsCurrent'],
    statusWrites: 1,
  },
  {
    name: 'adopt annotation names a deployment that does not exist: Stalled AdoptionFailed',
    given: () => {
      const w = world();
      w.obj.metadata.annotations = { [Annotation.AdoptDeploymentId]: '00000000-0000-4000-8000-000000000000' };
      return w;
    },
    calls: ['get'],
    conditions: ['Ready=False/AdoptionFailed', 'Stalled=True/AdoptionFailed'],
    events: ['Warning/AdoptionFailed'],
    statusWrites: 1,
  },
  {
    name: 'adopt annotation names another deployment than the one managed: Stalled AdoptionConflict',
    given: async () => {
      const w = await readyWorld();
      const other = await createElsewhere('other');
      w.obj.metadata.annotations = { [Annotation.AdoptDeploymentId]: other };
      return w;
    },
    calls: [],
    conditions: ['Ready=False/AdoptionConflict', 'Stalled=True/AdoptionConflict'],
    events: ['Warning/AdoptionConflict'],
    statusWrites: 1,
  },
  {
    name: 'adopting a deployment whose immutable field differs: Stalled ImmutableFieldChanged, no PATCH',
    given: async () => {
      const id = await createElsewhere('agent', { listener_id: '11111111-1111-4111-8111-111111111111' });
      const w = world();
      w.obj.metadata.annotations = { [Annotation.AdoptDeploymentId]: id };
      return w;
    },
    calls: ['get'],
    conditions: ['Ready=False/ImmutableFieldChanged', 'Stalled=True/ImmutableFieldChanged'],
    events: ['Normal/Adopted', 'Warning/ImmutableFieldChanged'],
    statusWrites: 1,
  },
  {
    name: 'the POST answer was lost, its pending mark kept: found by name and taken, no second POST',
    given: async () => {
      const w = world();
      sim.addFault({ method: 'POST', route: '/v2/deployments', dropResponse: 'after-commit', times: 1 });
      await w.pass();
      expect(w.obj.status?.createPendingSince).toBeDefined();
      return w;
    },
    calls: ['list', 'revision'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/Found', 'Normal/SecretsTakenAsCurrent'],
    statusWrites: 1,
    also: () => expect(sim.deployments()).toHaveLength(1),
  },
  {
    name: 'whole status lost after the POST (pending mark too): not taken without proof, NameConflict',
    given: async () => {
      const w = world();
      await w.pass();
      delete w.obj.status;
      return w;
    },
    calls: ['list'],
    conditions: ['Ready=False/NameConflict', 'Stalled=True/NameConflict'],
    events: ['Warning/NameConflict'],
    statusWrites: 1,
    also: (w) => {
      expect(sim.deployments()).toHaveLength(1);
      expect(condition(w, 'Stalled')?.message).toContain(sim.deployments()[0]?.id);
    },
  },
  {
    name: 'the name is held by a deployment made elsewhere: NameConflict pointing at adoption, no POST',
    given: async () => {
      await createElsewhere('agent');
      return world();
    },
    calls: ['list'],
    conditions: ['Ready=False/NameConflict', 'Stalled=True/NameConflict'],
    events: ['Warning/NameConflict'],
    statusWrites: 1,
    also: (w) => expect(condition(w, 'Stalled')?.message).toContain(Annotation.AdoptDeploymentId),
  },
  {
    name: 'another object already manages the id named by the adopt annotation: AlreadyManaged, nothing sent',
    given: async () => {
      const owner = await readyWorld();
      const other = agent({ name: 'agent' });
      other.metadata = { ...other.metadata, name: 'intruder', uid: 'uid-intruder', generation: 1 };
      other.metadata.annotations = {
        [Annotation.AdoptDeploymentId]: owner.obj.status?.deploymentId as string,
      };
      const ownerClaim = structuredClone(owner.obj);
      ownerClaim.metadata.namespace = 'team-b';
      return world(other, { others: [ownerClaim] });
    },
    calls: [],
    conditions: ['Ready=False/AlreadyManaged', 'Stalled=True/AlreadyManaged'],
    events: ['Warning/AlreadyManaged'],
    statusWrites: 1,
    also: (w) => expect(condition(w, 'Stalled')?.message).toContain('team-b/agent'),
  },
  {
    name: 'hole 3: a younger object adopting an id that does not exist: the older one creates its name',
    given: () => {
      const younger = agent({ name: 'agent' });
      younger.metadata = {
        ...younger.metadata,
        name: 'younger',
        uid: 'uid-younger',
        creationTimestamp: '2099-01-01T00:00:00Z',
        annotations: { [Annotation.AdoptDeploymentId]: '00000000-0000-4000-8000-000000000000' },
      };
      const self = agent();
      self.metadata.creationTimestamp = '2020-01-01T00:00:00Z';
      return world(self, { others: [younger] });
    },
    calls: ['list', 'create'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/Created'],
    statusWrites: 2,
  },
  {
    name: 'hole 3: a younger object adopting the deployment of the name: it holds the name, nothing sent',
    given: async () => {
      const id = await createElsewhere('agent');
      const younger = agent({ name: 'agent' });
      younger.metadata = {
        ...younger.metadata,
        name: 'younger',
        uid: 'uid-younger',
        creationTimestamp: '2099-01-01T00:00:00Z',
        annotations: { [Annotation.AdoptDeploymentId]: id },
      };
      const self = agent();
      self.metadata.creationTimestamp = '2020-01-01T00:00:00Z';
      return world(self, { others: [younger] });
    },
    calls: ['list'],
    conditions: ['Ready=False/NameConflict', 'Stalled=True/NameConflict'],
    events: ['Warning/NameConflict'],
    statusWrites: 1,
    also: (w) =>
      expect(condition(w, 'Stalled')?.message).toContain('team-a/younger, which adopts deployment'),
  },
  {
    name: 'the recorded deployment is gone: DeploymentMissing, created again',
    given: async () => {
      const w = await readyWorld();
      sim.deleteDeploymentBehindOperator(deploymentOf(w).id);
      return w;
    },
    // The name is looked up first: only a deployment the platform is still deleting may hold it.
    calls: ['get', 'list', 'create'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Warning/DeploymentMissing', 'Normal/Created'],
    statusWrites: 2,
  },
  {
    name: 'the recorded deployment is being deleted by someone else: Deleting, nothing sent',
    given: async () => {
      const w = await readyWorld();
      sim.setDeploymentStatus(deploymentOf(w).id, 'AWAITING_DELETE');
      return w;
    },
    calls: ['get'],
    conditions: ['Ready=False/Deleting', 'Reconciling=True/Deleting'],
    events: ['Warning/Deleting'],
    statusWrites: 1,
  },
  // 7. Decide: no drift, drift, what cannot be sent.
  {
    name: 'in sync: one GET, no write, no event',
    given: () => readyWorld(),
    calls: ['get'],
    conditions: ['Ready=True/Succeeded'],
    events: [],
    statusWrites: 0,
  },
  {
    name: 'the image changed: one PATCH of that field only, a new revision followed',
    given: async () => {
      const w = await readyWorld();
      w.edit((o) => {
        o.spec.sourceRevisionConfig = { imageUri: 'registry.example.com/agent:2' };
      });
      return w;
    },
    calls: ['get', 'patch'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/Patched'],
    statusWrites: 1,
    also: () => {
      const patch = sim.requests({ method: 'PATCH' })[0]?.body;
      expect(patch).toEqual({ source_revision_config: { image_uri: 'registry.example.com/agent:2' } });
    },
  },
  {
    name: 'a Secret value rotated: one PATCH of the whole secrets list',
    given: async () => {
      const w = await readyWorld();
      w.secrets.set('agent-secrets', { token: Buffer.from('rotated').toString('base64') });
      return w;
    },
    calls: ['get', 'patch'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/Patched'],
    statusWrites: 1,
    also: () => {
      const patch = sim.requests({ method: 'PATCH' })[0]?.body;
      expect(patch).toEqual({ secrets: [{ name: 'API_TOKEN', value: 'rotated' }] });
    },
  },
  {
    name: 'every secret removed: Stalled SecretsRemovalUnsupported, nothing sent',
    given: async () => {
      const w = await readyWorld();
      w.edit((o) => {
        delete o.spec.secrets;
      });
      return w;
    },
    calls: ['get'],
    conditions: ['Ready=False/SecretsRemovalUnsupported', 'Stalled=True/SecretsRemovalUnsupported'],
    events: ['Warning/SecretsRemovalUnsupported'],
    statusWrites: 1,
  },
  // 8. Follow the latest revision.
  {
    name: 'revision in progress: followed, polled sooner than the drift poll',
    given: async () => {
      const w = world();
      await w.pass();
      return w;
    },
    calls: ['get', 'revision'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: [],
    statusWrites: 1,
    also: (_w, pass) => expect(pass.result?.requeueAfterMs).toBe(REVISION_POLL_MS),
  },
  {
    name: 'revision DEPLOYED and deployment READY: Ready, one RevisionDeployed event',
    given: () => createdAndDeployed(world()),
    // The deployment read shows the revision active: the one deployed, not read again.
    calls: ['get'],
    conditions: ['Ready=True/Succeeded'],
    events: ['Normal/RevisionDeployed'],
    statusWrites: 1,
    // The batched poll brings it back on a change: only a slow safety resync is scheduled.
    also: (_w, pass) => expect(pass.result?.requeueAfterMs).toBe(POLL_MS * READY_RESYNC_FACTOR),
  },
  {
    name: 'Ready among 30,000 objects: the safety resync waits for its share of the reconcile rate',
    given: () => createdAndDeployed(world(agent(), { heldObjects: 30_000 })),
    calls: ['get'],
    conditions: ['Ready=True/Succeeded'],
    events: ['Normal/RevisionDeployed'],
    statusWrites: 1,
    // 30,000 objects at 2% of 50 reconciles a second: one resync a second, each object every 30,000 s.
    also: (_w, pass) => expect(pass.result?.requeueAfterMs).toBe(30_000_000),
  },
  {
    name: 'Ready with its own poll-interval annotation: comes back at that interval',
    given: () => {
      const w = world();
      w.obj.metadata.annotations = { [Annotation.PollInterval]: '30s' };
      return createdAndDeployed(w);
    },
    // The deployment read shows the revision active: the one deployed, not read again.
    calls: ['get'],
    conditions: ['Ready=True/Succeeded'],
    events: ['Normal/RevisionDeployed'],
    statusWrites: 1,
    also: (_w, pass) => expect(pass.result?.requeueAfterMs).toBe(30_000),
  },
  {
    name: 'revision DEPLOYED but deployment not READY: not Ready, says what it waits for',
    given: async () => {
      const w = world();
      await w.pass();
      deployLatest(w);
      sim.setDeploymentStatus(deploymentOf(w).id, 'UNKNOWN');
      return w;
    },
    // The deployment read shows the revision active: the one deployed, not read again.
    calls: ['get'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/RevisionDeployed'],
    statusWrites: 1,
  },
  {
    name: 'the pass after a create, its snapshot the POST answer, revision DEPLOYED: one deployment read',
    given: () => createdAndDeployed(world(agent(), { snapshots: true })),
    calls: ['get'],
    conditions: ['Ready=True/Succeeded'],
    events: ['Normal/RevisionDeployed'],
    statusWrites: 1,
  },
  {
    name: 'the pass after a create, its snapshot the POST answer, revision in progress: deployment, then revision',
    given: async () => {
      const w = world(agent(), { snapshots: true });
      await w.pass();
      return w;
    },
    calls: ['get', 'revision'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: [],
    statusWrites: 1,
  },
  {
    // Issue 50: the read again that shows the revision deployed also shows another image (someone
    // changed the deployment since the snapshot): Ready must not come from that read, nor the history.
    name: 'the deployment read again shows another configuration: the chain decides again and PATCHes, not Ready',
    given: async () => {
      const w = world(agent(), { snapshots: true });
      await w.pass();
      await w.pass();
      deployLatest(w);
      const d = deploymentOf(w);
      const answer = await fetch(`${sim.url}/v2/deployments/${d.id}`, {
        method: 'PATCH',
        headers: { 'X-Api-Key': DEFAULT_API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ source_revision_config: { image_uri: 'registry.example.com/other:9' } }),
      });
      expect(answer.status).toBe(200);
      return w;
    },
    calls: ['revision', 'get', 'patch'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/Patched'],
    statusWrites: 1,
    also: (w) => {
      expect(deploymentOf(w).source_revision_config.image_uri).toBe('registry.example.com/agent:1');
      expect(w.obj.status?.latestRevisionId).toBe(deploymentOf(w).latest_revision_id);
    },
  },
  {
    name: 'revision failed: Stalled RevisionFailed, one Warning',
    given: async () => {
      const w = world();
      await w.pass();
      deployLatest(w, 'BUILD_FAILED');
      return w;
    },
    calls: ['get', 'revision'],
    conditions: ['Ready=False/RevisionFailed', 'Stalled=True/RevisionFailed'],
    events: ['Warning/RevisionFailed'],
    statusWrites: 1,
  },
  {
    name: 'revision past spec.progressDeadline: Stalled ProgressDeadlineExceeded',
    given: async () => {
      const w = world(agent({ progressDeadline: '5m' }));
      await w.pass();
      w.clockMs += 6 * 60_000;
      return w;
    },
    calls: ['get', 'revision'],
    conditions: ['Ready=False/ProgressDeadlineExceeded', 'Stalled=True/ProgressDeadlineExceeded'],
    events: ['Warning/ProgressDeadlineExceeded'],
    statusWrites: 1,
  },
  {
    name: 'failed revision and a new redeploy-requested-at: one redeploy, recorded as handled',
    given: async () => {
      const w = world();
      await w.pass();
      deployLatest(w, 'DEPLOY_FAILED');
      await w.pass();
      w.obj.metadata.annotations = { [Annotation.RedeployRequestedAt]: 'try-again' };
      return w;
    },
    calls: ['get', 'revision', 'redeploy'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/Redeployed'],
    statusWrites: 1,
    also: (w) => expect(w.obj.status?.lastHandledRedeployAt).toBe('try-again'),
  },
  // Errors: transient failures back off and say so.
  {
    name: 'the control plane answers 503: transient, retried with backoff, said once',
    given: async () => {
      const w = await readyWorld();
      sim.addFault({ method: 'GET', route: '/v2/deployments/{deployment_id}', status: 503 });
      return w;
    },
    calls: ['get'],
    conditions: ['Ready=True/Succeeded', 'Reconciling=True/ControlPlaneUnavailable'],
    events: ['Warning/ControlPlaneUnavailable'],
    statusWrites: 1,
    also: (_w, pass) => expect(pass.error).toBeInstanceOf(Error),
  },
  {
    name: 'the control plane answers 429 with Retry-After: the pause travels with the error',
    given: async () => {
      const w = await readyWorld();
      sim.addFault({
        method: 'GET',
        route: '/v2/deployments/{deployment_id}',
        status: 429,
        retryAfterSeconds: 7,
      });
      return w;
    },
    calls: ['get'],
    conditions: ['Ready=True/Succeeded', 'Reconciling=True/ControlPlaneUnavailable'],
    events: ['Warning/ControlPlaneUnavailable'],
    statusWrites: 1,
    also: (_w, pass) => expect((pass.error as { retryAfterMs?: number }).retryAfterMs).toBe(7_000),
  },
  // Observe-only (spec.managementPolicies ["Observe"]): reads, reports, never writes.
  {
    name: 'observe-only, adopted by annotation, in sync: reported, no finalizer, nothing sent',
    given: async () => {
      const id = await createElsewhere('agent');
      const w = world(agent({ managementPolicies: ['Observe'] }));
      w.obj.metadata.annotations = { [Annotation.AdoptDeploymentId]: id };
      return w;
    },
    calls: ['get', 'revision'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: ['Normal/Adopted'],
    statusWrites: 1,
    also: (w) => {
      expect(w.obj.metadata.finalizers ?? []).toEqual([]);
      expect(w.obj.status?.drift).toEqual([]);
      expect(condition(w, 'Drifted')).toMatchObject({ status: 'False', reason: 'InSync' });
      expect(w.obj.status?.deploymentId).toBe(sim.deployments()[0]?.id);
    },
  },
  {
    name: 'observe-only, by name, drifted: Stalled DriftDetected naming the fields, not owned, no PATCH',
    given: async () => {
      await createElsewhere('agent', { resource_spec: { cpu: 2, memory_mb: 512, min_scale: 1 } });
      return world(agent({ managementPolicies: ['Observe'] }));
    },
    calls: ['list', 'revision'],
    conditions: ['Drifted=True/DriftDetected', 'Ready=False/DriftDetected', 'Stalled=True/DriftDetected'],
    events: ['Warning/DriftDetected'],
    statusWrites: 1,
    also: (w) => {
      expect(w.obj.status?.drift).toEqual([
        'spec.sourceConfig.resourceSpec.cpu',
        'spec.sourceConfig.resourceSpec.cpuLimit',
        'spec.sourceConfig.resourceSpec.queueCpu',
        'spec.sourceConfig.resourceSpec.queueCpuLimit',
      ]);
      expect(w.obj.status?.deploymentId).toBeUndefined();
      expect(w.obj.status?.latestRevisionId).toBeDefined();
    },
  },
  {
    name: 'observe-only, no deployment of the name: NotFound, nothing created, no verification',
    given: () => world(agent({ managementPolicies: ['Observe'], verification: { assistantId: 'agent' } })),
    calls: ['list'],
    conditions: ['Ready=False/NotFound', 'Reconciling=True/NotFound'],
    events: ['Warning/NotFound'],
    statusWrites: 1,
    also: (w) => {
      expect(sim.deployments()).toEqual([]);
      expect(condition(w, 'Verified')).toBeUndefined();
    },
  },
  {
    name: 'observe-only, a failed revision with spec.retry: Stalled RevisionFailed, no redeploy',
    given: async () => {
      const w = await readyWorld(agent({ retry: { limit: 3, backoff: '1s' } }));
      w.edit((o) => {
        o.spec.managementPolicies = ['Observe'];
      });
      const d = deploymentOf(w);
      w.clockMs += 3_600_000;
      sim.setRevisionStatus(d.id, d.latest_revision_id as string, 'DEPLOY_FAILED');
      w.obj.status = { ...w.obj.status, revisionStatus: 'DEPLOYING' };
      return w;
    },
    calls: ['get', 'revision'],
    conditions: ['Ready=False/RevisionFailed', 'Stalled=True/RevisionFailed'],
    events: ['Warning/RevisionFailed'],
    statusWrites: 1,
  },
  {
    name: 'observe-only, deleted with deletionPolicy Delete and a finalizer from before: orphaned, nothing sent',
    given: async () => {
      const w = await readyWorld();
      w.edit((o) => {
        o.spec.managementPolicies = ['Observe'];
      });
      w.obj.metadata.deletionTimestamp = new Date(w.clockMs);
      return w;
    },
    calls: [],
    conditions: ['Ready=True/Succeeded'],
    events: ['Normal/Orphaned'],
    statusWrites: 0,
    also: (w) => {
      expect(w.gone).toBe(true);
      expect(sim.deployments()).toHaveLength(1);
    },
  },
  {
    name: 'observe-only switched to full management, no drift: nothing sent, the finalizer goes on',
    given: async () => {
      const id = await createElsewhere('agent');
      const w = world(agent({ managementPolicies: ['Observe'] }));
      w.obj.metadata.annotations = { [Annotation.AdoptDeploymentId]: id };
      await w.pass();
      w.edit((o) => {
        o.spec.managementPolicies = ['*'];
      });
      return w;
    },
    calls: ['get', 'revision'],
    conditions: ['Ready=False/Progressing', 'Reconciling=True/Progressing'],
    events: [],
    statusWrites: 1,
    also: (w) => {
      expect(w.obj.metadata.finalizers).toEqual([FINALIZER]);
      expect(w.obj.status?.drift).toBeUndefined();
      expect(condition(w, 'Drifted')).toBeUndefined();
    },
  },
];

/** A deployment made outside the operator (by a CI script, say). */
async function createElsewhere(name: string, sourceConfig: Record<string, unknown> = {}): Promise<string> {
  const response = await fetch(`${sim.url}/v2/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Api-Key': DEFAULT_API_KEY },
    body: JSON.stringify({
      name,
      source: 'external_image',
      source_config: {
        listener_id: LISTENER,
        resource_spec: { cpu: 0.5, memory_mb: 512, min_scale: 1 },
        ...sourceConfig,
      },
      source_revision_config: { image_uri: 'registry.example.com/agent:1' },
      secrets: [{ name: 'API_TOKEN', value: 't0ken' }],
    }),
  });
  if (response.status !== 201)
    throw new Error(`create answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

/** An object deleted while its create (sent that long ago) had no answer, nothing recorded but the mark. */
function deletedWhileCreating(sentAgoMs: number): World {
  const w = world();
  w.obj.metadata.finalizers = [FINALIZER];
  w.obj.metadata.deletionTimestamp = new Date(w.clockMs);
  w.obj.status = { createPendingSince: new Date(w.clockMs - sentAgoMs).toISOString() };
  return w;
}

/**
 * A new object, and another of the same deployment name the cache delivers only with this one's create
 * mark (both applied together): each created at the time given.
 */
function twinWorld(created: { self: string; twin: string }): World {
  const twin = agent({ name: 'agent' });
  twin.metadata = { ...twin.metadata, name: 'twin', uid: 'uid-twin', creationTimestamp: created.twin };
  const self = agent();
  self.metadata.creationTimestamp = created.self;
  return world(self, { arriving: [twin] });
}

/** A new object whose name a deployment made elsewhere holds: its first pass stalls NameConflict. */
async function nameTakenWorld(): Promise<World> {
  await createElsewhere('agent');
  const w = world();
  await w.pass();
  expect(conditions(w)).toContain('Stalled=True/NameConflict');
  return w;
}

describe('an AgentDeployment pass, step by step', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const w = await row.given();
    const pass = await w.pass();
    expect(pass.calls).toEqual(row.calls);
    expect(conditions(w)).toEqual(row.conditions);
    expect(pass.events).toEqual(row.events);
    expect(pass.statusWrites).toBe(row.statusWrites);
    row.also?.(w, pass);
  });
});

describe('the safety resync of a Ready object', () => {
  it.each<[string, number, number, number, number]>([
    // name, poll interval, objects held, reconcile rate, resync after
    ['few objects: 10 poll intervals', 60_000, 100, 50, 600_000],
    ['600 objects at 50/s: 10 intervals is exactly 2% of the rate', 60_000, 600, 50, 600_000],
    ['10,000 objects at 50/s: one resync a second', 60_000, 10_000, 50, 10_000_000],
    ['10,000 objects at 1,000/s (the bench): 20 a second', 10_000, 10_000, 1_000, 500_000],
    ['1,000 objects at 1,000/s: 10 intervals', 10_000, 1_000, 1_000, 100_000],
  ])('%s', (_name, pollIntervalMs, objects, rate, expected) => {
    expect(readyResyncMs(pollIntervalMs, objects, rate)).toBe(expected);
  });
});

describe('one problem, one Warning', () => {
  it('a failed revision records exactly one RevisionFailed Warning over many passes', async () => {
    const w = world();
    await w.pass();
    deployLatest(w, 'BUILD_FAILED');
    for (let i = 0; i < 5; i++) await w.pass();
    const warnings = w.events.filter((e) => e.type === 'Warning');
    expect(warnings.map((e) => e.reason)).toEqual(['RevisionFailed']);
  });

  it('a transient failure that persists is said once, and its end is not a Warning', async () => {
    const w = await readyWorld();
    const stop = sim.addFault({ method: 'GET', route: '/v2/deployments/{deployment_id}', status: 503 });
    for (let i = 0; i < 3; i++) await w.pass();
    stop();
    await w.pass();
    expect(w.events.filter((e) => e.type === 'Warning').map((e) => e.reason)).toEqual([
      'ControlPlaneUnavailable',
    ]);
    expect(conditions(w)).toEqual(['Ready=True/Succeeded']);
  });
});

describe('post-deploy verification (step 9)', () => {
  const repoAgent = () =>
    agent({
      source: 'repo_host',
      sourceConfig: {
        integrationId: '6f1f7a4e-8d7b-4c43-9a57-2f6a9b1c0d11',
        repoUrl: 'https://git.example.com/team/agent',
        deploymentType: 'dev',
      },
      sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
      verification: { assistantId: 'agent' },
    });

  /** A deployed repo_host object verified by a real Verifier; passes until verification settles. */
  async function verify(options: { fail?: boolean; allowedHosts?: string }) {
    const verifier = new Verifier({
      backoffBaseMs: 1_000,
      allowedHosts: options.allowedHosts
        ? parseHostAllowList(options.allowedHosts)
        : defaultHostAllowList(sim.url),
      now: () => new Date(),
    });
    const w = world(repoAgent(), { verifier });
    await w.pass();
    sim.configureAgentServer(deploymentOf(w).id, { graph: { fail: options.fail ?? false } });
    deployLatest(w);
    const calls: string[] = [];
    const settled = () =>
      /Succeeded|VerificationFailed|URLNotAllowed/.test(condition(w, 'Verified')?.reason ?? '');
    for (let i = 0; i < 10 && !settled(); i++) calls.push(...(await w.pass()).calls);
    return { w, agentCalls: calls.filter((c) => c.startsWith('agent ')) };
  }

  it.each<[string, { fail?: boolean }, string[]]>([
    ['the smoke run succeeds: Verified, then Ready', {}, ['Ready=True/Succeeded', 'Verified=True/Succeeded']],
    [
      'the smoke run fails: neither Verified nor Ready, never Stalled',
      { fail: true },
      ['Ready=False/VerificationFailed', 'Reconciling=True/VerificationFailed'],
    ],
  ])('%s', async (_name, options, expected) => {
    const { w, agentCalls } = await verify(options);
    // Ready waited for the agent server: it was asked whether it is up, then given a run.
    expect(agentCalls[0]).toBe('agent GET /ok');
    expect(agentCalls.some((c) => c.includes('/runs'))).toBe(true);
    expect(conditions(w)).toEqual(expected);
  });

  it("a URL outside the allowed hosts: the controller's key is not sent, and status says why", async () => {
    const { w, agentCalls } = await verify({ allowedHosts: 'agents.example.com' });
    expect(agentCalls).toEqual([]);
    expect(condition(w, 'Ready')?.status).toBe('False');
    expect(conditions(w)).toContain('Stalled=True/URLNotAllowed');
  });
});

describe('safe rollouts (spec.remediation Rollback)', () => {
  const at = (repoRef: string) => ({ repoRef, graphConfigPath: 'langgraph.json' });
  const rollbackAgent = () =>
    agent({
      source: 'repo_host',
      sourceConfig: {
        integrationId: '6f1f7a4e-8d7b-4c43-9a57-2f6a9b1c0d11',
        repoUrl: 'https://git.example.com/team/agent',
        deploymentType: 'dev',
      },
      sourceRevisionConfig: at('refs/tags/v1'),
      verification: { assistantId: 'agent' },
      remediation: { strategy: 'Rollback' },
    });
  const verifiedAs = (w: World, reason: RegExp) => reason.test(condition(w, 'Verified')?.reason ?? '');
  /** Passes until `done`; the calls of all of them. */
  async function passesUntil(w: World, done: () => boolean): Promise<PassRecord[]> {
    const passes: PassRecord[] = [];
    for (let i = 0; i < 12 && !done(); i++) passes.push(await w.pass());
    return passes;
  }

  it('a failed verification: one redeploy of the last good revision, then RolledBack, then a pass sends nothing', async () => {
    sim.configureRevisionAgent('refs/tags/bad', { graph: { fail: true } });
    const verifier = new Verifier({
      backoffBaseMs: 1_000,
      allowedHosts: defaultHostAllowList(sim.url),
      now: () => new Date(),
    });
    const w = world(rollbackAgent(), { verifier });
    await w.pass();
    deployLatest(w);
    await passesUntil(w, () => verifiedAs(w, /Succeeded/));
    const good = w.obj.status?.latestRevisionId;
    expect(w.obj.status?.lastGoodRevision).toBe(good);

    w.edit((obj) => {
      obj.spec.sourceRevisionConfig = at('refs/tags/bad');
    });
    expect((await w.pass()).calls).toContain('patch');
    deployLatest(w);
    const failing = await passesUntil(w, () => condition(w, 'Ready')?.reason === 'RollingBack');
    expect(failing.flatMap((p) => p.calls).filter((c) => c === 'redeploy')).toHaveLength(1);
    expect(failing.flatMap((p) => p.events)).toContain('Warning/RollingBack');
    deployLatest(w);
    await passesUntil(w, () => condition(w, 'Stalled')?.reason === 'RolledBack');
    expect(conditions(w)).toEqual([
      'Ready=False/RolledBack',
      'Stalled=True/RolledBack',
      'Verified=True/Succeeded',
    ]);
    expect(w.obj.status?.history?.[0]).toMatchObject({ trigger: 'Rollback', redeployOf: good });

    const after = await w.pass();
    expect(after.calls.filter((c) => !c.startsWith('agent ') && c !== 'get' && c !== 'revision')).toEqual([]);
    expect(after.statusWrites).toBe(0);
  });
});

describe('analysis of each new revision (spec.analysis)', () => {
  const analysedAgent = (image = 'registry.example.com/agent:1') =>
    agent({
      sourceRevisionConfig: { imageUri: image },
      remediation: { strategy: 'Rollback' },
      analysis: {
        count: 2,
        interval: '10s',
        metrics: [
          {
            name: 'errors',
            web: { url: 'https://metrics.example.com/errors', jsonPath: '{$.rate}' },
            successCondition: 'result < 0.1',
            failureCondition: 'result > 0.5',
          },
        ],
      },
    });
  /** An analyst answering `values` in turn (one per measurement), counting its measurements. */
  const answering = (values: number[]) => {
    const taken: number[] = [];
    return {
      taken,
      measure: async () => {
        const value = values[taken.length] ?? 0;
        taken.push(value);
        return { value };
      },
      counted: () => {},
    };
  };
  /** Passes, a measurement interval apart, until `done`. */
  async function measuredUntil(w: World, done: () => boolean): Promise<PassRecord[]> {
    const passes: PassRecord[] = [];
    for (let i = 0; i < 8 && !done(); i++) {
      passes.push(await w.pass());
      w.clockMs += 10_000;
    }
    return passes;
  }

  it('measures a deployed revision once per interval, never twice, and only then makes it the last good one', async () => {
    const analyst = answering([0.01, 0.02]);
    const w = world(analysedAgent(), { analyst });
    await w.pass();
    deployLatest(w);
    const first = await w.pass();
    expect(first.events).toContain('Normal/AnalysisStarted');
    expect(analyst.taken).toHaveLength(1);
    expect(conditions(w)).toEqual(['Ready=False/AnalysisRunning', 'Reconciling=True/AnalysisRunning']);
    expect(w.obj.status?.lastGoodRevision).toBeUndefined();
    // Not due yet: nothing measured again.
    await w.pass();
    expect(analyst.taken).toHaveLength(1);
    w.clockMs += 10_000;
    const last = await w.pass();
    expect(analyst.taken).toHaveLength(2);
    expect(last.events).toContain('Normal/AnalysisSuccessful');
    expect(w.obj.status?.analysis).toMatchObject({
      phase: 'Successful',
      metrics: [{ measured: 2, successful: 2 }],
    });
    expect(w.obj.status?.lastGoodRevision).toBe(w.obj.status?.latestRevisionId);
    expect(conditions(w)).toEqual(['Ready=True/Succeeded']);
  });

  it('a failed analysis rolls back to the last good revision (spec.remediation Rollback)', async () => {
    const analyst = answering([0.01, 0.01, 0.9]);
    const w = world(analysedAgent(), { analyst });
    await w.pass();
    deployLatest(w);
    await measuredUntil(w, () => w.obj.status?.analysis?.phase === 'Successful');
    const good = w.obj.status?.lastGoodRevision;
    w.edit((obj) => {
      obj.spec.sourceRevisionConfig = { imageUri: 'registry.example.com/agent:2' };
    });
    expect((await w.pass()).calls).toContain('patch');
    deployLatest(w);
    const failing = await measuredUntil(w, () => condition(w, 'Ready')?.reason === 'RollingBack');
    expect(failing.flatMap((p) => p.events)).toEqual(
      expect.arrayContaining(['Normal/AnalysisStarted', 'Warning/AnalysisFailed', 'Warning/RollingBack']),
    );
    expect(failing.flatMap((p) => p.calls).filter((c) => c === 'redeploy')).toHaveLength(1);
    expect(w.obj.status?.history?.[0]).toMatchObject({ trigger: 'Rollback', redeployOf: good });
    expect(w.obj.status?.history?.[1]).toMatchObject({ outcome: 'RolledBack', analysis: 'Failed' });
  });

  it('inconclusive: paused (Ready False) until promoted, then the last good revision', async () => {
    const analyst = answering([0.3]);
    const w = world(analysedAgent(), { analyst });
    await w.pass();
    deployLatest(w);
    const paused = await w.pass();
    expect(paused.events).toContain('Warning/AnalysisInconclusive');
    expect(conditions(w)).toEqual(['Paused=True/AnalysisInconclusive', 'Ready=False/AnalysisInconclusive']);
    w.obj.metadata.annotations = { [Annotation.AnalysisPromoteRequestedAt]: '2026-06-01T00:00:00Z' };
    const promoted = await w.pass();
    expect(promoted.events).toContain('Normal/AnalysisPromoted');
    expect(w.obj.status).toMatchObject({
      lastHandledPromoteAt: '2026-06-01T00:00:00Z',
      analysis: { phase: 'Successful' },
      lastGoodRevision: w.obj.status?.latestRevisionId,
    });
    expect(conditions(w)).toEqual(['Ready=True/Succeeded']);
  });

  it('paused by an inconclusive analysis, the object is still reconciled: its generation observed, a reconcile request handled', async () => {
    const w = world(analysedAgent(), { analyst: answering([0.3]) });
    await w.pass();
    deployLatest(w);
    await w.pass();
    expect(w.obj.status?.analysis?.phase).toBe('Inconclusive');
    w.edit((obj) => {
      if (obj.spec.analysis) obj.spec.analysis.inconclusiveLimit = 0;
    });
    w.obj.metadata.annotations = { [Annotation.ReconcileRequestedAt]: 'now' };
    await w.pass();
    expect(conditions(w)).toEqual(['Paused=True/AnalysisInconclusive', 'Ready=False/AnalysisInconclusive']);
    expect(w.obj.status).toMatchObject({
      observedGeneration: w.obj.metadata.generation,
      lastHandledReconcileAt: 'now',
    });
  });

  it("past the namespace's rate bound nothing is measured: still running, measured when it allows", async () => {
    const w = world(analysedAgent(), {
      analyst: { measure: async () => ({ throttledForMs: 5_000 }), counted: () => {} },
    });
    await w.pass();
    deployLatest(w);
    await w.pass();
    expect(w.obj.status?.analysis).toMatchObject({ phase: 'Running', metrics: [{ measured: 0, error: 0 }] });
    expect(condition(w, 'Reconciling')).toMatchObject({
      reason: 'AnalysisRunning',
      message: expect.stringMatching(/rate bound/),
    });
  });

  it('a promote with nothing to promote is refused, handled, and said', async () => {
    const w = world(agent(), {});
    await createdAndDeployed(w);
    w.obj.metadata.annotations = { [Annotation.AnalysisPromoteRequestedAt]: 'now' };
    const refused = await w.pass();
    expect(refused.events).toContain('Warning/AnalysisRequestRefused');
    expect(w.obj.status).toMatchObject({
      lastHandledPromoteAt: 'now',
      analysisRequestRefused: expect.stringMatching(/no analysis/),
    });
  });
});

/** RFC 7386: null removes, objects merge, anything else replaces. */
function applyMergePatch<T>(target: T, patch: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...(target as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (
      typeof value === 'object' &&
      !Array.isArray(value) &&
      typeof out[key] === 'object' &&
      out[key] !== null
    )
      out[key] = applyMergePatch(out[key], value as Record<string, unknown>);
    else out[key] = structuredClone(value);
  }
  return out as T;
}
