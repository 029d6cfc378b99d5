/**
 * Hostile control planes beside a healthy namespace: one namespace's credentials point at allowed
 * servers that trickle a byte at a time, send a 100 MB body, or answer 429 with Retry-After: 86400, and
 * another namespace names eight credentials on the trickling one. Every call to them ends at its deadline
 * or cap, a long pause requeues instead of holding a worker, a circuit breaker parks a credential that
 * keeps failing, and the reserve workers start a tenant with nothing in flight: the healthy namespace
 * converges, and its time beside them against its time alone (same run) is printed for docs/security.md.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { externalImage } from './support/agd-objects.ts';
import {
  condition,
  createAgd,
  eventually,
  getAgd,
  type Harness,
  putSecret,
  sleep,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { type HostileMode, type HostileServer, startHostileServer } from './support/hostile-server.ts';
import { createTestNamespace } from './support/kube.ts';

const MODES: HostileMode[] = ['trickle', 'huge', 'retry-after'];

let h: Harness;
let hostile: Harness;
let attacker: Harness;
const servers = {} as Record<HostileMode, HostileServer>;
/** Seconds until every healthy object was Ready: alone, then beside the hostile tenants (same run). */
const timings: { alone?: number; beside?: number } = {};

const agd = (name: string, credentials?: string) =>
  externalImage(name, credentials ? { credentialsSecretRef: { name: credentials } } : {});

/** Creates `names` in the healthy namespace and waits for all of them: the seconds it took. */
async function converge(names: string[]): Promise<number> {
  const started = performance.now();
  for (const name of names) await createAgd(h, agd(name));
  await Promise.all(names.map((name) => waitReady(h, name, 60_000)));
  return (performance.now() - started) / 1000;
}

beforeAll(async () => {
  h = await startHarness('hostile-healthy', { withOperator: false });
  hostile = { ...h, ns: await createTestNamespace('hostile-peers') };
  attacker = { ...h, ns: await createTestNamespace('hostile-attacker') };
  for (const mode of MODES) servers[mode] = await startHostileServer(mode);
  await h.startOperator({
    WATCH_NAMESPACES: `${h.ns},${hostile.ns},${attacker.ns}`,
    // The administrator allows them: an allowed control plane may still misbehave.
    ALLOWED_CONTROL_PLANE_URLS: MODES.map((mode) => servers[mode].url).join(','),
    // The defaults of a real install: four workers, a 30 s deadline per call.
    WORKERS: '4',
  });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await Promise.all(Object.values(servers).map((s) => s.close()));
  if (timings.alone !== undefined && timings.beside !== undefined) {
    const ratio = (timings.beside / timings.alone).toFixed(2);
    process.stdout.write(
      `hostile-peers: healthy namespace Ready in ${timings.alone.toFixed(1)} s alone, ${timings.beside.toFixed(1)} s beside the hostile tenants (${ratio}x)\n`,
    );
  }
});

it('the healthy namespace converges alone (the reference time)', async () => {
  timings.alone = await converge(['alone-1', 'alone-2', 'alone-3', 'alone-4', 'alone-5']);
});

it('the healthy namespace converges while three broken control planes and an attacker with eight Secrets run', async () => {
  for (const mode of MODES) {
    await putSecret(hostile, `${mode}-credentials`, { apiKey: 'hostile-key', baseUrl: servers[mode].url });
    // More hostile objects than workers: without bulkheads they would hold all of them.
    for (const i of [1, 2, 3]) await createAgd(hostile, agd(`${mode}-${i}`, `${mode}-credentials`));
  }
  // One namespace, eight credential identities (eight keys) on the trickling server.
  for (let i = 1; i <= 8; i++) {
    await putSecret(attacker, `key-${i}`, { apiKey: `attacker-key-${i}`, baseUrl: servers.trickle.url });
    await createAgd(attacker, agd(`attacker-${i}`, `key-${i}`));
  }
  await sleep(10_000);
  timings.beside = await converge(['beside-1', 'beside-2', 'beside-3', 'beside-4', 'beside-5']);
});

it.each<[HostileMode, RegExp]>([
  ['trickle', /no complete answer within 30s|calls to this control plane are paused/],
  // Issue 32: the call's budget (BudgetExceeded), not the server's health: the circuit stays closed.
  ['huge', /larger than \d+ bytes|pages passed \d+ bytes/],
  ['retry-after', /rate limited \(429\)|asked this credential to pause/],
])('the %s server is reported in the objects that use it, never Ready', async (mode, message) => {
  const obj = await eventually(
    async () => {
      const o = await getAgd(hostile, `${mode}-1`);
      const reconciling = condition(o, 'Reconciling');
      return reconciling && message.test(reconciling.message) ? o : undefined;
    },
    `${mode}-1 reports its server`,
    90_000,
  );
  expect(condition(obj, 'Ready')?.status).not.toBe('True');
});

it('a server asking for a day-long pause gets no further request from that credential', async () => {
  const before = servers['retry-after'].requests();
  await new Promise((r) => setTimeout(r, 2_000));
  expect(servers['retry-after'].requests()).toBe(before);
});
