/**
 * Worlds for the equivalence of the SandboxTemplate controller's pass and the plan
 * (template-equivalence.test.ts): an object (annotations, credentials), its credentials Secret, the
 * administrator's scope and the platform's templates (on the simulator), built from a few dimensions;
 * then the two readers, each answer reduced to `none`, `stall:Reason`, `wait:Reason` (or the plan's
 * `unknown:Reason`).
 */
import pino from 'pino';
import { Annotation } from '../../api/names.ts';
import type { SandboxTemplate, SandboxTemplateStatus } from '../../api/sandboxtemplate.ts';
import { controlPlaneAllowList } from '../../controlplane/allowed-control-planes.ts';
import { ControlPlaneClient } from '../../controlplane/client.ts';
import { defaultCredentialsScope } from '../../controlplane/default-credentials-scope.ts';
import { ControlPlanePools } from '../../controlplane/pools.ts';
import type { PlanWorld } from '../../plan/model.ts';
import { readOnly } from '../../plan/read-only.ts';
import { planSandboxTemplate } from '../../plan/sandboxtemplate.ts';
import type { TemplateGates } from '../../reconcile/sandboxtemplate/program.ts';
import { publishedSettingsOf } from '../../reconcile/settings.ts';
import { findCondition } from '../../runtime/conditions.ts';
import { reconcileWithShell } from '../../runtime/reconcile-shell.ts';
import { DEFAULT_API_KEY, type SandboxTemplateSeed, type Simulator } from '../../simulator/index.ts';
import { sandboxTemplateShell } from './reconciler.ts';
import { TemplateSnapshots } from './snapshots.ts';

const NS = 'team-a';
const NOW = Date.parse('2026-06-01T00:00:00Z');

/** The dimensions a world is built from. */
export interface TemplateWorldSpec {
  annotation: 'none' | 'paused' | 'badPollInterval' | 'reconcileRequested';
  credentials: 'default' | 'secretAllowed' | 'secretNotAllowed' | 'secretMissing';
  scope: 'allowed' | 'notAllowed';
  /** The platform's templates: none of the name, a near name, one (in sync or drifted), or two. */
  templates: 'none' | 'similar' | 'inSync' | 'drifted' | 'two';
}

export const TEMPLATE_BASE: TemplateWorldSpec = {
  annotation: 'none',
  credentials: 'default',
  scope: 'allowed',
  templates: 'inSync',
};

const PYTHON: SandboxTemplateSeed = {
  name: 'python',
  image: 'python:3.12',
  resources: { cpu: '1', memory: '1Gi' },
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
};

const SEEDS: Record<TemplateWorldSpec['templates'], SandboxTemplateSeed[]> = {
  none: [],
  similar: [{ ...PYTHON, name: 'python-3' }],
  inSync: [PYTHON],
  drifted: [{ ...PYTHON, image: 'python:3.11' }],
  two: [
    { ...PYTHON, id: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' },
    { ...PYTHON, id: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb' },
  ],
};

export interface TemplateWorld {
  spec: TemplateWorldSpec;
  obj: SandboxTemplate;
  /** Secrets by namespace/name (base64 values). */
  secrets: Map<string, Record<string, string>>;
  settings: ReturnType<typeof publishedSettingsOf>;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Sets the simulator's templates and builds the object for `spec`. */
export function buildTemplateWorld(sim: Simulator, spec: TemplateWorldSpec): TemplateWorld {
  sim.setTemplates(SEEDS[spec.templates]);
  const secrets = new Map<string, Record<string, string>>();
  if (spec.credentials === 'secretAllowed' || spec.credentials === 'secretNotAllowed') {
    const baseUrl = spec.credentials === 'secretAllowed' ? sim.url : 'https://elsewhere.example.com';
    secrets.set(`${NS}/template-credentials`, { apiKey: b64(DEFAULT_API_KEY), baseUrl: b64(baseUrl) });
  }
  const annotations: Record<string, string> = {};
  if (spec.annotation === 'paused') annotations[Annotation.Paused] = 'true';
  if (spec.annotation === 'badPollInterval') annotations[Annotation.PollInterval] = '1ms';
  if (spec.annotation === 'reconcileRequested') annotations[Annotation.ReconcileRequestedAt] = 'now';
  const obj = {
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'SandboxTemplate',
    metadata: { name: 'python', namespace: NS, uid: 'uid-python', generation: 1, annotations },
    spec: {
      templateName: 'python',
      image: 'python:3.12',
      ...(spec.credentials !== 'default' ? { credentialsSecretRef: { name: 'template-credentials' } } : {}),
    },
  } as SandboxTemplate;
  const settings = publishedSettingsOf({
    defaultCredentialsNamespaces: spec.scope === 'allowed' ? [NS] : ['team-c'],
    allowedControlPlanes: controlPlaneAllowList('', sim.url),
    defaultControlPlaneUrl: sim.url,
  });
  return { spec, obj, secrets, settings };
}

const reduce = (conditions: SandboxTemplateStatus['conditions']): string => {
  if (findCondition(conditions, 'Paused')?.status === 'True') return 'none';
  const stalled = findCondition(conditions, 'Stalled');
  if (stalled?.status === 'True') return `stall:${stalled.reason}`;
  const reconciling = findCondition(conditions, 'Reconciling');
  if (reconciling?.status === 'True' && reconciling.reason !== 'Progressing')
    return `wait:${reconciling.reason}`;
  return 'none';
};

/** What one controller pass left, reduced (`gates`: the chain to run; the default is the whole chain). */
export async function templateControllerVerdict(
  sim: Simulator,
  world: TemplateWorld,
  gates?: TemplateGates,
): Promise<string> {
  const obj = structuredClone(world.obj);
  const scope = defaultCredentialsScope({
    namespaces: world.settings.defaultCredentials.namespaces,
    namespaceSelector: '',
  });
  const pools = new ControlPlanePools({ clientDefaults: { getRetries: 0 }, breaker: { threshold: 1_000 } });
  const shell = sandboxTemplateShell(
    {
      getObject: () => obj,
      readSecret: async (namespace, name) => world.secrets.get(`${namespace}/${name}`),
      writeStatus: async (_o, status) => {
        obj.status = structuredClone(status);
      },
      recordEvent: () => {},
      listTemplates: (credentials) => pools.clientFor(credentials).listAllSandboxTemplates(),
      snapshots: new TemplateSnapshots({ now: () => NOW }),
      defaultCredentials: { baseUrl: sim.url, apiKey: DEFAULT_API_KEY },
      allowedControlPlanes: controlPlaneAllowList('', sim.url),
      defaultCredentialsScope: (namespace) => scope.decisionFor(namespace, undefined),
      pollIntervalMs: 60_000,
      now: () => new Date(NOW),
    },
    gates,
  );
  const signal = new AbortController().signal;
  try {
    await reconcileWithShell(shell, `${NS}/python`, {
      signal,
      deadline: signal,
      log: pino({ level: 'silent' }),
    });
  } catch {
    // A transient failure (retried with backoff): its reason is in the conditions, read below.
  } finally {
    await pools.close();
  }
  return reduce(obj.status?.conditions);
}

/** What the plan prints for the same world, reduced the same way. */
export async function templatePlanVerdict(sim: Simulator, world: TemplateWorld): Promise<string> {
  const clients: ControlPlaneClient[] = [];
  const planWorld: PlanWorld = {
    kube: {
      live: async () => undefined,
      secret: async (namespace, name) => world.secrets.get(`${namespace}/${name}`),
      dryRun: async () => undefined,
      agentDeployments: async () => [],
      agentDeploymentsMatching: async () => [],
      controllerSettings: async () => ({ ok: true, settings: world.settings, deployment: 'test/controller' }),
      settingsLocation: 'test/settings',
      namespaceLabels: async () => ({}),
      windowPolicies: async () => [],
      maySeeSecrets: async () => true,
    },
    defaultCredentials: { baseUrl: sim.url, apiKey: DEFAULT_API_KEY },
    digestKey: undefined,
    controlPlane(credentials) {
      const client = new ControlPlaneClient({ credentials, getRetries: 0 });
      clients.push(client);
      return readOnly(client);
    },
  };
  try {
    const { obj } = world;
    const entry = await planSandboxTemplate(
      {
        apiVersion: obj.apiVersion as string,
        kind: 'SandboxTemplate',
        metadata: { name: obj.metadata.name, namespace: NS, annotations: obj.metadata.annotations ?? {} },
        spec: obj.spec,
      },
      NS,
      planWorld,
    );
    return entry.action === 'none' ? 'none' : `${entry.action}:${entry.reason}`;
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}
