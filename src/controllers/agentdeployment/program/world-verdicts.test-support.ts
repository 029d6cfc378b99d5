/**
 * The two readers of a world (worlds.test-support.ts): the controller runs one real pass over it
 * (Kubernetes in memory, the control plane the simulator); the plan runs over the same world with its
 * read-only port. Each side's answer is reduced to the first write, or the wait or stall with its reason.
 */
import pino from 'pino';
import type { AgentDeployment, AgentDeploymentStatus } from '../../../api/agentdeployment.ts';
import { FINALIZER } from '../../../api/names.ts';
import { controlPlaneAllowList } from '../../../controlplane/allowed-control-planes.ts';
import { ControlPlaneClient } from '../../../controlplane/client.ts';
import { defaultCredentialsScope } from '../../../controlplane/default-credentials-scope.ts';
import { ControlPlanePools } from '../../../controlplane/pools.ts';
import { credentialsPolicy } from '../../../controlplane/resolve-credentials.ts';
import { planAgentDeployment } from '../../../plan/agentdeployment.ts';
import type { LiveObject, PlanWorld } from '../../../plan/model.ts';
import { planRemoved } from '../../../plan/prune.ts';
import { readOnly } from '../../../plan/read-only.ts';
import { ClaimIndex } from '../../../reconcile/agentdeployment/claim-index.ts';
import type { DeletionGates } from '../../../reconcile/agentdeployment/deletion/chain.ts';
import { selectingPolicies } from '../../../reconcile/agentdeployment/policy-windows.ts';
import type { Gate, GateName } from '../../../reconcile/agentdeployment/verdict.ts';
import { identityOf, usableCredentials } from '../../../reconcile/credentials.ts';
import { findCondition } from '../../../runtime/conditions.ts';
import { reconcileWithShell } from '../../../runtime/reconcile-shell.ts';
import { DEFAULT_API_KEY, type Simulator } from '../../../simulator/index.ts';
import { agentDeploymentShell } from '../reconciler.ts';
import type { AgentDeploymentDeps } from '../types.ts';
import { agentDeploymentSteps } from './steps.ts';
import { type BuiltWorld, DIGEST_KEY, NOW, NS, NS_LABELS } from './worlds.test-support.ts';

/** How the controller's pass is run and watched. */
export interface PassOptions {
  /** The chains to run (a test takes one gate out); the default is the whole chain. */
  gates?: readonly (readonly [GateName, Gate])[];
  deletionGates?: DeletionGates;
  /** Collects the pass's Kubernetes-side bookkeeping (finalizers), which the plan only assumes. */
  kubeWrites?: string[];
  /** Collects every control-plane write of the pass, then what it left (as the reduction says it). */
  trace?: string[];
}

/**
 * What one pass did, reduced: the first control-plane write, else `orphan` (the object let go),
 * `stall:Reason`, `wait:Reason`, none.
 */
export async function controllerVerdict(
  sim: Simulator,
  world: BuiltWorld,
  options: PassOptions = {},
): Promise<string> {
  const { gates, deletionGates, kubeWrites = [], trace = [] } = options;
  let obj = structuredClone(world.obj);
  const scope = defaultCredentialsScope({
    namespaces: world.settings.defaultCredentials.namespaces,
    namespaceSelector: '',
  });
  const policy = credentialsPolicy(
    { baseUrl: sim.url, apiKey: DEFAULT_API_KEY },
    controlPlaneAllowList('', sim.url),
  );
  const claims = ClaimIndex.of(world.others, (o) => {
    const ns = o.metadata.namespace ?? '';
    return identityOf(
      usableCredentials(
        o,
        (name) => world.secrets.get(`${ns}/${name}`),
        scope.decisionFor(ns, undefined),
        policy,
      ),
    );
  });
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
      return obj;
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
      unmatch: () => {},
    },
    defaultCredentials: { baseUrl: sim.url, apiKey: DEFAULT_API_KEY },
    allowedControlPlanes: controlPlaneAllowList('', sim.url),
    claims: (query: Parameters<ClaimIndex['claims']>[0]) => claims.claims(query),
    cacheShows: async () => true,
    defaultCredentialsScope: (namespace: string) => scope.decisionFor(namespace, undefined),
    windowPolicies: (_namespace: string, labels: Record<string, string> | undefined) =>
      selectingPolicies(world.policies, NS_LABELS, labels),
    windowHolds: () => {},
    protectCredentials: async () => {
      kubeWrites.push('protectCredentials');
    },
    releaseCredentials: async () => {
      kubeWrites.push('releaseCredentials');
    },
    digestKey: DIGEST_KEY,
    pollIntervalMs: 60_000,
    revisionPollMs: 5_000,
    reconcileRate: 50,
    heldObjects: () => 1,
    verifier: { step: () => Promise.reject(new Error('no verification')), forget: () => {} },
    // Every provider answers 1: what the worlds' conditions judge.
    analyst: { measure: async () => ({ value: 1 }), counted: () => {} },
    now: () => new Date(NOW),
  };
  const typed = deps as unknown as AgentDeploymentDeps;
  // A deleted object without the finalizer is let go with no write at all: the pass says so.
  let released = false;
  const steps = agentDeploymentSteps(typed, gates, deletionGates).map((step) => ({
    ...step,
    async run(pass: Parameters<typeof step.run>[0]) {
      const outcome = await step.run(pass);
      if (outcome?.kind === 'deleted') released = true;
      return outcome;
    },
  }));
  const shell = { ...agentDeploymentShell(typed), steps };
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
  trace.push(...writes, left());
  return writes[0] ?? left();

  /** What the pass left, writes aside. */
  function left(): string {
    if (gone || released) return 'orphan';
    const conditions = obj.status?.conditions;
    // Paused: nothing sent (a Stalled condition from before is left as it was).
    if (findCondition(conditions, 'Paused')?.status === 'True') return 'none';
    const stalled = findCondition(conditions, 'Stalled');
    if (stalled?.status === 'True') return `stall:${stalled.reason}`;
    const reconciling = findCondition(conditions, 'Reconciling');
    // In progress (a revision, or its analysis): nothing to send, as the plan says `none`.
    const inProgress = ['Progressing', 'AnalysisRunning'];
    if (reconciling?.status === 'True' && !inProgress.includes(reconciling.reason))
      return `wait:${reconciling.reason}`;
    return 'none';
  }
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
    now: () => new Date(NOW),
    kube: {
      live: async () => live,
      secret: async (namespace, name) => world.secrets.get(`${namespace}/${name}`),
      dryRun: async () => undefined,
      agentDeployments: async () => [live, ...others],
      agentDeploymentsMatching: async () => [live],
      controllerSettings: async () => ({ ok: true, settings: world.settings, deployment: 'test/controller' }),
      settingsLocation: 'test/settings',
      namespaceLabels: async () => NS_LABELS,
      windowPolicies: async () => world.policies,
      maySeeSecrets: async () => true,
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
    // Held after a rollback: nothing sent, and the object reported Stalled (RolledBack), as the plan says.
    if (entry.action === 'none' && entry.reason === 'RolledBack') return 'stall:RolledBack';
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
