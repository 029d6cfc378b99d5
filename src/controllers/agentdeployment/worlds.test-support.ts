/**
 * Worlds for the equivalence of the controller's pass and the plan (reconcile-equivalence.test.ts): an
 * object (spec, annotations, status, deletion), its Secrets, other objects and their claims, the
 * platform's deployments (on the simulator) and the controller's settings, built from a few dimensions.
 * The controller runs one real pass over it (Kubernetes in memory, the control plane the simulator);
 * the plan runs over the same world with its read-only port. Each side's answer is reduced to the
 * first write, or the wait or stall with its reason.
 */
import pino from 'pino';
import type { AgentDeployment, AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import { Annotation, FINALIZER } from '../../api/names.ts';
import { controlPlaneAllowList } from '../../controlplane/allowed-control-planes.ts';
import { ControlPlaneClient } from '../../controlplane/client.ts';
import { defaultCredentialsScope } from '../../controlplane/default-credentials-scope.ts';
import { ControlPlanePools } from '../../controlplane/pools.ts';
import { credentialsPolicy } from '../../controlplane/resolve-credentials.ts';
import { planAgentDeployment } from '../../plan/agentdeployment.ts';
import type { LiveObject, PlanWorld } from '../../plan/model.ts';
import { planRemoved } from '../../plan/prune.ts';
import { readOnly } from '../../plan/read-only.ts';
import type { Gate, GateName } from '../../reconcile/agentdeployment/verdict.ts';
import { ClaimIndex } from '../../reconcile/claim-index.ts';
import { identityOf, usableCredentials } from '../../reconcile/credentials.ts';
import { desiredDeployment } from '../../reconcile/desired.ts';
import { publishedSettingsOf } from '../../reconcile/settings.ts';
import { findCondition } from '../../runtime/conditions.ts';
import { reconcileWithShell } from '../../runtime/reconcile-shell.ts';
import {
  DEFAULT_API_KEY,
  defaultListeners,
  type Simulator,
  type SimulatorOptions,
} from '../../simulator/index.ts';
import { agentDeploymentShell } from './reconciler.ts';
import { agentDeploymentSteps } from './steps.ts';
import type { AgentDeploymentDeps } from './types.ts';

export const NS = 'team-a';
const OTHER_NS = 'team-b';
const DIGEST_KEY = 'digest-key-for-worlds';
const NOW = Date.parse('2026-06-01T00:00:00Z');
const LISTENER = defaultListeners()[0]?.id as string;
/** A second listener, so a deployment can differ in an immutable field (the simulator takes both). */
const OTHER_LISTENER = {
  ...(defaultListeners()[0] as ReturnType<typeof defaultListeners>[number]),
  id: '11111111-1111-4111-8111-111111111111',
};
/** The simulator the worlds need. */
export const WORLD_SIMULATOR: SimulatorOptions = {
  revisionStepMs: 3_600_000,
  listeners: [...defaultListeners(), OTHER_LISTENER],
};
/** A deployment id the platform does not know. */
const GONE_ID = '00000000-0000-4000-8000-000000000000';

/** The dimensions a world is built from. */
export interface WorldSpec {
  platform: 'none' | 'inSync' | 'drifted' | 'immutable' | 'deleting';
  record: 'none' | 'recorded' | 'recordedGone' | 'otherTenant' | 'pendingAfter' | 'pendingBefore' | 'adopt';
  annotation: 'none' | 'paused' | 'badPollInterval' | 'reconcileRequested';
  policy: 'full' | 'observeOnly';
  credentials: 'default' | 'secretAllowed' | 'secretNotAllowed' | 'secretMissing';
  scope: 'allowed' | 'notAllowed';
  secrets: 'present' | 'missing' | 'huge';
  other: 'none' | 'olderSameName' | 'olderObserveOnly' | 'olderRefused' | 'recordsSameId';
  held: boolean;
  deleting: boolean;
}

export const BASE: WorldSpec = {
  platform: 'none',
  record: 'none',
  annotation: 'none',
  policy: 'full',
  credentials: 'default',
  scope: 'allowed',
  secrets: 'present',
  other: 'none',
  held: false,
  deleting: false,
};

export interface BuiltWorld {
  spec: WorldSpec;
  obj: AgentDeployment;
  /** Secrets by namespace/name (base64 values). */
  secrets: Map<string, Record<string, string>>;
  others: AgentDeployment[];
  settings: ReturnType<typeof publishedSettingsOf>;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

function objectSpec(spec: WorldSpec, image = 'registry.example.com/agent:1'): AgentDeployment['spec'] {
  return {
    source: 'external_image',
    sourceConfig: { listenerId: LISTENER, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
    sourceRevisionConfig: { imageUri: image },
    secrets: [{ name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'agent-secrets', key: 'token' } } }],
    ...(spec.credentials !== 'default' ? { credentialsSecretRef: { name: 'agent-credentials' } } : {}),
    ...(spec.policy === 'observeOnly' ? { managementPolicies: ['Observe'] } : {}),
  } as AgentDeployment['spec'];
}

/** Sets the simulator's deployments and builds the object and its neighbours for `spec`. */
export async function buildWorld(sim: Simulator, spec: WorldSpec): Promise<BuiltWorld> {
  for (const d of sim.deployments()) sim.deleteDeploymentBehindOperator(d.id);
  sim.holdDeletions(false);
  const secrets = new Map<string, Record<string, string>>();
  if (spec.secrets !== 'missing') {
    const token = spec.secrets === 'huge' ? 'x'.repeat(3 * 1024 * 1024) : 't0ken';
    secrets.set(`${NS}/agent-secrets`, { token: b64(token) });
  }
  if (spec.credentials !== 'secretMissing' && spec.credentials !== 'default') {
    const baseUrl = spec.credentials === 'secretAllowed' ? sim.url : 'https://elsewhere.example.com';
    secrets.set(`${NS}/agent-credentials`, { apiKey: b64(DEFAULT_API_KEY), baseUrl: b64(baseUrl) });
  }
  const obj: AgentDeployment = {
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'AgentDeployment',
    metadata: {
      name: 'agent',
      namespace: NS,
      uid: 'uid-agent',
      generation: 1,
      creationTimestamp: new Date(NOW - 60_000),
      annotations: {},
      finalizers: spec.policy === 'full' || spec.deleting ? [FINALIZER] : [],
    },
    spec: objectSpec(spec),
    status: {},
  } as unknown as AgentDeployment;
  const annotations = obj.metadata.annotations as Record<string, string>;
  if (spec.annotation === 'paused') annotations[Annotation.Paused] = 'true';
  if (spec.annotation === 'badPollInterval') annotations[Annotation.PollInterval] = '1ms';
  if (spec.annotation === 'reconcileRequested') annotations[Annotation.ReconcileRequestedAt] = 'now';
  if (spec.deleting) obj.metadata.deletionTimestamp = new Date(NOW - 1_000);

  // The platform: a deployment of the object's name, as the object would make it (or not quite).
  const lookup = (name: string) => secrets.get(`${NS}/${name}`);
  const platformLookup = (name: string) => (name === 'agent-secrets' ? { token: b64('t0ken') } : undefined);
  const desired = desiredDeployment(obj, lookup, DIGEST_KEY);
  const request = desiredDeployment(obj, platformLookup, DIGEST_KEY);
  if (!request.ok) throw new Error(request.message);
  const status = obj.status as AgentDeploymentStatus;
  let deploymentId: string | undefined;
  if (spec.platform !== 'none') {
    const client = new ControlPlaneClient({ credentials: { baseUrl: sim.url, apiKey: DEFAULT_API_KEY } });
    try {
      const body = structuredClone(request.request);
      if (spec.platform === 'drifted') body.source_revision_config.image_uri = 'registry.example.com/agent:0';
      if (spec.platform === 'immutable') body.source_config.listener_id = OTHER_LISTENER.id;
      const made = await client.createDeployment(body).catch(() => client.createDeployment(request.request));
      deploymentId = made.id;
      if (made.latest_revision_id) sim.setRevisionStatus(made.id, made.latest_revision_id, 'DEPLOYED');
      if (spec.platform === 'deleting') {
        sim.holdDeletions(true);
        await client.deleteDeployment(made.id);
      }
    } finally {
      await client.close();
    }
  }
  const made = deploymentId ? sim.deployments().find((d) => d.id === deploymentId) : undefined;
  const tenantNow = identityOf(
    usableCredentials(
      obj,
      lookup,
      { allowed: true },
      credentialsPolicy({ baseUrl: sim.url, apiKey: DEFAULT_API_KEY }, controlPlaneAllowList('', sim.url)),
    ),
  )?.tenant;
  switch (spec.record) {
    case 'recorded':
      if (made) {
        status.deploymentId = made.id;
        if (tenantNow) status.credentialsDigest = tenantNow;
        if (desired.ok) {
          status.secretsDigest = desired.digests.secrets;
          status.appliedConfigDigest = desired.digests.unechoed;
        }
        status.latestRevisionId = made.latest_revision_id ?? undefined;
        status.revisionStatus = 'DEPLOYED';
      }
      break;
    case 'recordedGone':
      status.deploymentId = GONE_ID;
      if (tenantNow) status.credentialsDigest = tenantNow;
      break;
    case 'otherTenant':
      status.deploymentId = made?.id ?? GONE_ID;
      status.credentialsDigest = 'sha256:another-tenant';
      break;
    case 'pendingAfter':
      status.createPendingSince = new Date(NOW - 3_600_000).toISOString();
      break;
    case 'pendingBefore':
      status.createPendingSince = new Date(Date.now() + 3_600_000).toISOString();
      break;
    case 'adopt':
      annotations[Annotation.AdoptDeploymentId] = made?.id ?? GONE_ID;
      break;
  }
  if (spec.held) {
    status.observedGeneration = 1;
    status.conditions = [
      {
        type: 'Stalled',
        status: 'True',
        reason: 'Rejected',
        message: 'the control plane refused the request',
        observedGeneration: 1,
        lastTransitionTime: new Date(NOW - 120_000).toISOString(),
      },
    ];
  }

  const others: AgentDeployment[] = [];
  const other = (
    namespace: string,
    over: Partial<AgentDeployment['spec']>,
    status: AgentDeploymentStatus = {},
  ) =>
    ({
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'AgentDeployment',
      metadata: {
        name: 'older',
        namespace,
        uid: `uid-older-${namespace}`,
        generation: 1,
        creationTimestamp: new Date(NOW - 3_600_000),
      },
      spec: { ...objectSpec({ ...BASE }), name: 'agent', ...over },
      status,
    }) as unknown as AgentDeployment;
  if (spec.other === 'olderSameName') others.push(other(NS, {}));
  if (spec.other === 'olderObserveOnly') others.push(other(NS, { managementPolicies: ['Observe'] }));
  if (spec.other === 'olderRefused') others.push(other(OTHER_NS, {}));
  if (spec.other === 'recordsSameId' && made)
    others.push(
      other(NS, {}, { deploymentId: made.id, ...(tenantNow ? { credentialsDigest: tenantNow } : {}) }),
    );
  const settings = publishedSettingsOf({
    // team-b may never use the default credentials; team-a only when allowed.
    defaultCredentialsNamespaces: spec.scope === 'allowed' ? [NS] : ['team-c'],
    allowedControlPlanes: controlPlaneAllowList('', sim.url),
    defaultControlPlaneUrl: sim.url,
  });
  return { spec, obj, secrets, others, settings };
}

/** What one pass did, reduced: the first control-plane write, else `stall:Reason`, `wait:Reason`, none. */
export async function controllerVerdict(
  sim: Simulator,
  world: BuiltWorld,
  gates?: readonly (readonly [GateName, Gate])[],
  /** Collects the pass's Kubernetes-side bookkeeping (finalizers), which the plan only assumes. */
  kubeWrites: string[] = [],
): Promise<string> {
  let obj = structuredClone(world.obj);
  const scope = defaultCredentialsScope({
    namespaces: world.settings.defaultCredentials.namespaces,
    namespaceSelector: '',
  });
  const policy = credentialsPolicy(
    { baseUrl: sim.url, apiKey: DEFAULT_API_KEY },
    controlPlaneAllowList('', sim.url),
  );
  const claims = new ClaimIndex((o) => {
    const ns = o.metadata.namespace ?? '';
    return identityOf(
      usableCredentials(o, (name) => world.secrets.get(`${ns}/${name}`), scope.decide(ns, undefined), policy),
    );
  });
  for (const o of world.others) claims.set(o);
  const pools = new ControlPlanePools({ clientDefaults: { getRetries: 0 }, breaker: { threshold: 1_000 } });
  let gone = false;
  const deps = {
    getObject: () => (gone ? undefined : obj),
    readSecret: async (namespace: string, name: string) => world.secrets.get(`${namespace}/${name}`),
    writeStatus: async (_o: AgentDeployment, status: AgentDeploymentStatus) => {
      obj = { ...obj, status: structuredClone(status) };
      return obj;
    },
    addFinalizer: async () => {
      kubeWrites.push('addFinalizer');
      obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), FINALIZER];
    },
    removeFinalizer: async () => {
      obj.metadata.finalizers = [];
      gone = true;
    },
    recordEvent: () => {},
    controlPlane: (credentials: Parameters<ControlPlanePools['clientFor']>[0]) =>
      pools.clientFor(credentials),
    observer: {
      fresh: () => undefined,
      remember: () => {},
      forget: () => {},
      track: () => {},
      untrack: () => {},
    },
    defaultCredentials: { baseUrl: sim.url, apiKey: DEFAULT_API_KEY },
    allowedControlPlanes: controlPlaneAllowList('', sim.url),
    claims: (query: Parameters<ClaimIndex['claims']>[0]) => claims.claims(query),
    cacheShows: async () => true,
    defaultCredentialsScope: (namespace: string) => scope.decide(namespace, undefined),
    protectCredentials: async () => {
      kubeWrites.push('protectCredentials');
    },
    releaseCredentials: async () => {
      kubeWrites.push('releaseCredentials');
    },
    digestKey: DIGEST_KEY,
    pollIntervalMs: 60_000,
    revisionPollMs: 5_000,
    verifier: { step: () => Promise.reject(new Error('no verification')), forget: () => {} },
    now: () => new Date(NOW),
  };
  const typed = deps as unknown as AgentDeploymentDeps;
  const shell = { ...agentDeploymentShell(typed), steps: agentDeploymentSteps(typed, gates) };
  sim.resetRequests();
  const signal = new AbortController().signal;
  try {
    await reconcileWithShell(shell, `${NS}/agent`, {
      signal,
      deadline: signal,
      log: pino({ level: 'silent' }),
    });
  } catch {
    // A transient failure (retried with backoff): its reason is in the conditions, read below.
  } finally {
    await pools.close();
  }
  const writes = sim
    .requests()
    .filter((r) => r.method !== 'GET')
    .map((r) =>
      r.method === 'POST' && r.route.endsWith('/redeploy')
        ? 'redeploy'
        : r.method === 'POST'
          ? 'create'
          : r.method.toLowerCase(),
    );
  if (writes[0]) return writes[0];
  if (gone) return 'orphan';
  const conditions = obj.status?.conditions;
  // Paused: nothing sent (a Stalled condition from before is left as it was).
  if (findCondition(conditions, 'Paused')?.status === 'True') return 'none';
  const stalled = findCondition(conditions, 'Stalled');
  if (stalled?.status === 'True') return `stall:${stalled.reason}`;
  const reconciling = findCondition(conditions, 'Reconciling');
  if (reconciling?.status === 'True' && reconciling.reason !== 'Progressing')
    return `wait:${reconciling.reason}`;
  return 'none';
}

/** What the plan prints for the same world, reduced the same way. */
export async function planVerdict(sim: Simulator, world: BuiltWorld): Promise<string> {
  const clients: ControlPlaneClient[] = [];
  const live = structuredClone(world.obj) as unknown as LiveObject;
  live.metadata.creationTimestamp = (world.obj.metadata.creationTimestamp as unknown as Date).toISOString();
  if (world.obj.metadata.deletionTimestamp)
    live.metadata.deletionTimestamp = (world.obj.metadata.deletionTimestamp as unknown as Date).toISOString();
  const others = world.others.map((o) => {
    const copy = structuredClone(o) as unknown as LiveObject;
    copy.metadata.creationTimestamp = (o.metadata.creationTimestamp as unknown as Date).toISOString();
    return copy;
  });
  const planWorld: PlanWorld = {
    kube: {
      live: async () => live,
      secret: async (namespace, name) => world.secrets.get(`${namespace}/${name}`),
      dryRun: async () => undefined,
      agentDeployments: async () => [live, ...others],
      agentDeploymentsMatching: async () => [live],
      controllerSettings: async () => world.settings,
      settingsLocation: 'test/settings',
      namespaceLabels: async () => ({}),
    },
    defaultCredentials: { baseUrl: sim.url, apiKey: DEFAULT_API_KEY },
    digestKey: DIGEST_KEY,
    controlPlane(credentials) {
      const client = new ControlPlaneClient({ credentials, getRetries: 0 });
      clients.push(client);
      return readOnly(client);
    },
  };
  try {
    const entry = world.obj.metadata.deletionTimestamp
      ? await planRemoved(live, planWorld)
      : await planAgentDeployment(
          {
            apiVersion: world.obj.apiVersion as string,
            kind: 'AgentDeployment',
            metadata: {
              name: live.metadata.name,
              namespace: NS,
              annotations: live.metadata.annotations ?? {},
            },
            spec: world.obj.spec,
          },
          NS,
          planWorld,
        );
    switch (entry.action) {
      case 'stall':
      case 'wait':
        return `${entry.action}:${entry.reason}`;
      default:
        return entry.action;
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}
