/**
 * Hole 1 of issue 52, black-box: the controller's key follows no URL a namespace user chooses. The real
 * API server, the operator in-process, the simulator as the control plane and agent servers. A namespace
 * allowed the default credentials points an external_image's customUrl at a server of its own on a host
 * the allow-list names: the server sees the verification, and no request of it carries the controller's
 * key. A second namespace's agent server (a repo_host deployment, on the platform's host) gets no run
 * from the first when the first points customUrl at it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { AGENT_DEPLOYMENT, GROUP, VERSION } from '../src/api/group.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { DEFAULT_API_KEY } from '../src/simulator/index.ts';
import { externalImage, repoHost } from './support/agd-objects.ts';
import {
  AGD_PATH,
  condition,
  createAgd,
  eventually,
  getAgd,
  type Harness,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { createTestNamespace } from './support/kube.ts';

let h: Harness;
/** The second namespace, whose repo_host deployment's agent server the first points at. */
let victimNs: string;
let own: Server;
let ownUrl: string;
/** What reached the namespace's own server: method, path and the credentials headers it carried. */
const seen: { line: string; apiKey: string | undefined; authorization: string | undefined }[] = [];

/** An agent server that answers every verification call as a success. */
function answer(req: IncomingMessage, res: import('node:http').ServerResponse) {
  seen.push({
    line: `${req.method} ${req.url}`,
    apiKey: req.headers['x-api-key'] as string | undefined,
    authorization: req.headers.authorization,
  });
  const json = (body: unknown) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const path = req.url ?? '';
  if (path.endsWith('/threads')) return json({ thread_id: 'thread-1' });
  if (path.endsWith('/runs')) return json({ run_id: 'run-1', thread_id: 'thread-1', status: 'pending' });
  if (/\/runs\/run-1$/.test(path)) return json({ run_id: 'run-1', thread_id: 'thread-1', status: 'success' });
  return json({ ok: true });
}

beforeAll(async () => {
  own = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((r) => own.listen(0, '127.0.0.1', r));
  ownUrl = `http://127.0.0.1:${(own.address() as AddressInfo).port}`;
  h = await startHarness('key-destination', { withOperator: false });
  victimNs = await createTestNamespace('key-destination-victim');
  await h.startOperator({
    WATCH_NAMESPACES: `${h.ns},${victimNs}`,
    // The namespace's server is on an allowed host, next to the platform's own.
    AGENT_SERVER_ALLOWED_HOSTS: `${new URL(h.sim.url).origin},${ownUrl}`,
    // Loopback is reachable here, so what a call without the key carries is seen, not refused.
    AGENT_SERVER_ALLOWED_INTERNAL_ADDRESSES: '127.0.0.1',
  });
});

afterAll(async () => {
  await h?.stop();
  own?.closeAllConnections();
  await new Promise<void>((r) => (own ? own.close(() => r()) : r()));
});

const verification = { assistantId: 'agent', webhook: false, timeout: '5s' };

/** The object once its first verification completed. */
const verifiedOnce = (name: string) =>
  eventually(
    async () => {
      const o = await getAgd(h, name);
      return o.status?.verification?.last ? o : undefined;
    },
    `${name} verified once`,
    60_000,
  );

it("hole 1 (issue 52): a customUrl on an allowed host gets no request carrying the controller's key", async () => {
  seen.length = 0;
  await createAgd(h, externalImage('own-server', { verification }, { customUrl: `${ownUrl}/agent` }));
  const obj = await verifiedOnce('own-server');
  expect(seen.map((s) => s.line)).toContain('GET /agent/ok');
  expect(seen.filter((s) => s.apiKey !== undefined || s.authorization !== undefined)).toEqual([]);
  expect(JSON.stringify(seen)).not.toContain(DEFAULT_API_KEY);
  // It says so: verified without a key, and how to send one.
  const verified = condition(obj, 'Verified');
  expect(verified?.status).toBe('True');
  expect(verified?.message).toContain('no key was sent');
  expect(verified?.message).toContain('spec.verification.credentialsSecretRef');
});

it("hole 1 (issue 52): a second namespace's agent server gets no run from the first", async () => {
  // The victim's repo_host deployment: the platform assigns its URL, on the platform's (allowed) host.
  await kubeRequest(h.access, {
    method: 'POST',
    path: AGD_PATH(victimNs),
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: AGENT_DEPLOYMENT.kind, ...repoHost('victim') },
  });
  const victim = await eventually(
    async () => {
      const o = (await kubeRequest(h.access, {
        method: 'GET',
        path: `${AGD_PATH(victimNs)}/victim`,
      })) as AgentDeployment;
      return condition(o, 'Ready')?.status === 'True' && o.status?.url ? o : undefined;
    },
    'victim Ready with a URL',
    60_000,
  );
  const victimUrl = victim.status?.url as string;
  const victimId = victim.status?.deploymentId as string;
  await createAgd(h, externalImage('intruder', { verification }, { customUrl: victimUrl }));
  const obj = await verifiedOnce('intruder');
  const onVictim = h.sim.requests().filter((r) => r.path.startsWith(`/deployments/${victimId}/`));
  // Whatever reached it was refused for want of a key: no thread, no run.
  expect(onVictim.filter((r) => r.status >= 200 && r.status < 300)).toEqual([]);
  expect(onVictim.filter((r) => r.method === 'POST' && r.route.endsWith('/runs'))).toEqual([]);
  expect(obj.status?.verification?.last?.outcome).toBe('Failed');
  expect(condition(obj, 'Verified')?.message).toContain('no key was sent');
  await waitReady(h, 'own-server');
});
