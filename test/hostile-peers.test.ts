/**
 * Hostile control planes beside a healthy namespace (issue 15): one namespace's credentials point at
 * servers that trickle a byte at a time, send a 100 MB body, or answer 429 with Retry-After: 86400.
 * Every call to them ends at its deadline or cap, a long pause requeues instead of holding a worker,
 * and no tenant holds every worker: the healthy namespace's objects still converge.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultListeners } from '../src/simulator/index.ts';
import {
  condition,
  createAgd,
  eventually,
  getAgd,
  type Harness,
  putSecret,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { type HostileMode, type HostileServer, startHostileServer } from './support/hostile-server.ts';
import { createTestNamespace } from './support/kube.ts';

const LISTENER = defaultListeners()[0]?.id as string;
const MODES: HostileMode[] = ['trickle', 'huge', 'retry-after'];

let h: Harness;
let hostile: Harness;
const servers = {} as Record<HostileMode, HostileServer>;

const agd = (name: string, credentials?: string) => ({
  metadata: { name },
  spec: {
    source: 'external_image',
    sourceConfig: { listenerId: LISTENER },
    sourceRevisionConfig: { imageUri: `registry.example.com/${name}:1` },
    ...(credentials ? { credentialsSecretRef: { name: credentials } } : {}),
  },
});

beforeAll(async () => {
  h = await startHarness('hostile-healthy', { withOperator: false });
  hostile = { ...h, ns: await createTestNamespace('hostile-peers') };
  for (const mode of MODES) {
    servers[mode] = await startHostileServer(mode);
    await putSecret(hostile, `${mode}-credentials`, { apiKey: 'hostile-key', baseUrl: servers[mode].url });
    // More hostile objects than workers: without deadlines and fairness they would hold all four.
    for (const i of [1, 2, 3]) await createAgd(hostile, agd(`${mode}-${i}`, `${mode}-credentials`));
  }
  await h.startOperator({
    WATCH_NAMESPACES: `${h.ns},${hostile.ns}`,
    // The administrator allows them: an allowed control plane may still misbehave.
    ALLOWED_CONTROL_PLANE_URLS: MODES.map((mode) => servers[mode].url).join(','),
    WORKERS: '4',
    CONTROL_PLANE_TIMEOUT: '3s',
  });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

it('the healthy namespace converges while another namespace points at hostile servers', async () => {
  const names = ['healthy-1', 'healthy-2', 'healthy-3'];
  for (const name of names) await createAgd(h, agd(name));
  for (const name of names) await waitReady(h, name, 60_000);
});

it.each<[HostileMode, RegExp]>([
  ['trickle', /no complete answer within 3s/],
  ['huge', /larger than \d+ bytes/],
  ['retry-after', /rate limited \(429\)|asked this credential to pause/],
])('the %s server is reported in the objects that use it, never Ready', async (mode, message) => {
  const obj = await eventually(async () => {
    const o = await getAgd(hostile, `${mode}-1`);
    const reconciling = condition(o, 'Reconciling');
    return reconciling && message.test(reconciling.message) ? o : undefined;
  }, `${mode}-1 reports its server`);
  expect(condition(obj, 'Ready')?.status).not.toBe('True');
});

it('a server asking for a day-long pause gets no further request from that credential', async () => {
  const before = servers['retry-after'].requests();
  await new Promise((r) => setTimeout(r, 2_000));
  expect(servers['retry-after'].requests()).toBe(before);
});
