/**
 * The whole SandboxTemplate pass as a decision table, without a cluster: the real reconciler against the
 * simulator's template listing over HTTP, and Kubernetes replaced by an in-memory object. Each row is
 * the state before a pass, then what that pass listed, the conditions it left, the events it recorded
 * and whether it wrote status.
 */
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Annotation } from '../../api/names.ts';
import type { SandboxTemplate, SandboxTemplateStatus } from '../../api/sandboxtemplate.ts';
import { ControlPlanePools } from '../../controlplane/pools.ts';
import type { PendingEvent } from '../../runtime/reconcile-shell.ts';
import {
  DEFAULT_API_KEY,
  type SandboxTemplateSeed,
  type Simulator,
  startSimulator,
} from '../../simulator/index.ts';
import { sandboxTemplateReconciler } from './reconciler.ts';
import { TemplateSnapshots } from './snapshots.ts';

const POLL_MS = 60_000;
const silent = pino({ level: 'silent' });
const PYTHON: SandboxTemplateSeed = {
  name: 'python',
  image: 'python:3.12',
  resources: { cpu: '1', memory: '1Gi' },
  // Fixed times: seeding again must not read as a change on the platform.
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
};

let sim: Simulator;
const openPools: ControlPlanePools[] = [];
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
afterEach(async () => {
  await Promise.all(openPools.splice(0).map((p) => p.close()));
});

interface World {
  obj: SandboxTemplate;
  events: PendingEvent[];
  statusWrites: SandboxTemplateStatus[];
  clockMs: number;
  pass(): Promise<{ lists: number; statusWrites: number; events: string[]; error?: unknown }>;
}

function world(spec: Partial<SandboxTemplate['spec']> = {}): World {
  const pools = new ControlPlanePools({ clientDefaults: { getRetries: 0 } });
  openPools.push(pools);
  const w: World = {
    obj: {
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'SandboxTemplate',
      metadata: { name: 'python', namespace: 'team-a', uid: 'uid-python', generation: 1 },
      spec: { templateName: 'python', ...spec },
    },
    events: [],
    statusWrites: [],
    clockMs: Date.now(),
    async pass() {
      sim.resetRequests();
      const writes = w.statusWrites.length;
      const events = w.events.length;
      let error: unknown;
      try {
        const signal = new AbortController().signal;
        await reconcile('team-a/python', { signal, deadline: signal, log: silent });
      } catch (err) {
        error = err;
      }
      return {
        lists: sim.requests({ method: 'GET', route: '/v2/sandboxes/templates' }).length,
        statusWrites: w.statusWrites.length - writes,
        events: w.events.slice(events).map((e) => `${e.type}/${e.reason}`),
        error,
      };
    },
  };
  const reconcile = sandboxTemplateReconciler({
    getObject: () => w.obj,
    readSecret: async () => undefined,
    writeStatus: async (_obj, status) => {
      w.statusWrites.push(structuredClone(status));
      w.obj.status = structuredClone(status);
    },
    recordEvent: (_obj, event) => w.events.push(event),
    listTemplates: (credentials) => pools.clientFor(credentials).listAllSandboxTemplates(),
    snapshots: new TemplateSnapshots({ now: () => w.clockMs }),
    defaultCredentials: { baseUrl: sim.url, apiKey: DEFAULT_API_KEY },
    defaultCredentialsScope: () => ({ allowed: true }),
    pollIntervalMs: POLL_MS,
    now: () => new Date(w.clockMs),
  });
  return w;
}

function conditions(w: World): string[] {
  return (w.obj.status?.conditions ?? [])
    .filter((c) => c.type === 'Ready' || c.type === 'Drifted' || c.status === 'True')
    .map((c) => `${c.type}=${c.status}/${c.reason}`)
    .sort();
}

interface Row {
  name: string;
  templates: SandboxTemplateSeed[];
  given: () => Promise<World> | World;
  lists: number;
  conditions: string[];
  events: string[];
  statusWritten: boolean;
}

/** A world that has seen the template once, in sync, with time moved past the poll interval. */
async function syncedWorld(spec: Partial<SandboxTemplate['spec']> = {}): Promise<World> {
  const w = world({ image: 'python:3.12', ...spec });
  await w.pass();
  w.clockMs += POLL_MS;
  return w;
}

const rows: Row[] = [
  {
    name: 'found and as the spec says: Ready, Drifted False, one listing',
    templates: [PYTHON],
    given: () => world({ image: 'python:3.12' }),
    lists: 1,
    conditions: ['Drifted=False/InSync', 'Ready=True/Succeeded'],
    events: [],
    statusWritten: true,
  },
  {
    name: 'a later poll that finds nothing new: no write, no event',
    templates: [PYTHON],
    given: () => syncedWorld(),
    lists: 1,
    conditions: ['Drifted=False/InSync', 'Ready=True/Succeeded'],
    events: [],
    statusWritten: false,
  },
  {
    name: 'the template changed on the platform: Drifted, Stalled DriftDetected, one Warning',
    templates: [{ ...PYTHON, image: 'python:3.13' }],
    given: () => syncedWorld(),
    lists: 1,
    conditions: ['Drifted=True/DriftDetected', 'Ready=False/DriftDetected', 'Stalled=True/DriftDetected'],
    events: ['Warning/DriftDetected'],
    statusWritten: true,
  },
  {
    name: 'no template of that name: waiting NotFound, one Warning',
    templates: [],
    given: () => world(),
    lists: 1,
    conditions: ['Ready=False/NotFound', 'Reconciling=True/NotFound'],
    events: ['Warning/NotFound'],
    statusWritten: true,
  },
  {
    name: 'two templates of that name: Stalled Ambiguous',
    templates: [PYTHON, { ...PYTHON, id: 'second-python' }],
    given: () => world(),
    lists: 1,
    conditions: ['Ready=False/Ambiguous', 'Stalled=True/Ambiguous'],
    events: ['Warning/Ambiguous'],
    statusWritten: true,
  },
  {
    name: 'paused: nothing listed',
    templates: [PYTHON],
    given: () => {
      const w = world();
      w.obj.metadata.annotations = { [Annotation.Paused]: 'true' };
      return w;
    },
    lists: 0,
    conditions: ['Paused=True/Paused', 'Ready=Unknown/Paused'],
    events: [],
    statusWritten: true,
  },
  {
    name: 'poll-interval out of bounds: Stalled InvalidAnnotation, nothing listed',
    templates: [PYTHON],
    given: () => {
      const w = world();
      w.obj.metadata.annotations = { [Annotation.PollInterval]: '25h' };
      return w;
    },
    lists: 0,
    conditions: ['Ready=False/InvalidAnnotation', 'Stalled=True/InvalidAnnotation'],
    events: ['Warning/InvalidAnnotation'],
    statusWritten: true,
  },
  {
    name: 'a reconcile requested within the poll interval: listed again at once',
    templates: [PYTHON],
    given: async () => {
      const w = await syncedWorld();
      w.clockMs -= POLL_MS / 2;
      w.obj.metadata.annotations = { [Annotation.ReconcileRequestedAt]: 'now' };
      return w;
    },
    lists: 1,
    conditions: ['Drifted=False/InSync', 'Ready=True/Succeeded'],
    events: [],
    statusWritten: true,
  },
  {
    name: 'deleted: nothing to do on the platform, nothing listed',
    templates: [PYTHON],
    given: () => {
      const w = world();
      w.obj.metadata.deletionTimestamp = new Date(w.clockMs);
      return w;
    },
    lists: 0,
    conditions: [],
    events: [],
    statusWritten: false,
  },
];

describe('a SandboxTemplate pass, step by step', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    sim.setTemplates([PYTHON]);
    const w = await row.given();
    sim.setTemplates(row.templates);
    const pass = await w.pass();
    expect(pass.lists).toBe(row.lists);
    expect(conditions(w)).toEqual(row.conditions);
    expect(pass.events).toEqual(row.events);
    expect(pass.statusWrites).toBe(row.statusWritten ? 1 : 0);
  });

  it('drift that clears is a Normal InSync event, and the Warning is not repeated while it lasts', async () => {
    sim.setTemplates([{ ...PYTHON, image: 'python:3.13' }]);
    const w = world({ image: 'python:3.12' });
    for (let i = 0; i < 3; i++) {
      await w.pass();
      w.clockMs += POLL_MS;
    }
    sim.setTemplates([PYTHON]);
    await w.pass();
    expect(w.events.map((e) => `${e.type}/${e.reason}`)).toEqual(['Warning/DriftDetected', 'Normal/InSync']);
    expect(conditions(w)).toEqual(['Drifted=False/InSync', 'Ready=True/Succeeded']);
  });
});
