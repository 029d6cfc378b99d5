/**
 * One namespace cannot reach another through the controller (issue "Tenants walled off"): a control
 * plane the administrator has not listed gets no request, an allowed one that forges its answers plants
 * nothing in another tenant's view, and the controller's key goes only over https unless the allow-list
 * says http://.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../src/controlplane/client.ts';
import { DEFAULT_API_KEY } from '../src/simulator/index.ts';
import { LISTENER, repoHost } from './support/agd-objects.ts';
import {
  condition,
  createAgd,
  eventually,
  getAgd,
  type Harness,
  mergePatchAgd,
  putSecret,
  sleep,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { createTestNamespace } from './support/kube.ts';

const TEAM_KEY = 'team-key-of-the-victim-0001';

interface Scripted {
  url: string;
  seen: { method: string; path: string; headers: IncomingMessage['headers'] }[];
  answer: (req: IncomingMessage, body: string, res: ServerResponse) => void;
  close(): Promise<void>;
}

async function scriptedServer(): Promise<Scripted> {
  const scripted = { seen: [] } as unknown as Scripted;
  scripted.answer = (_req, _body, res) => res.writeHead(404).end('{"detail":"not found"}');
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      scripted.seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
      scripted.answer(req, body, res);
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  scripted.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  scripted.close = async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  };
  return scripted;
}

const image = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: {
    source: 'external_image',
    sourceConfig: { listenerId: LISTENER },
    sourceRevisionConfig: { imageUri: `registry.example.com/${name}:1` },
    ...extra,
  },
});

let h: Harness;
let attacker: Harness;
/** A control plane the administrator allows, scripted to forge its answers. */
let forger: Scripted;
/** A server nobody allowed. */
let unlisted: Scripted;

beforeAll(async () => {
  h = await startHarness('tenants', {
    withOperator: false,
    simulator: { apiKeys: [DEFAULT_API_KEY, TEAM_KEY] },
  });
  attacker = { ...h, ns: await createTestNamespace('tenants-attacker') };
  [forger, unlisted] = await Promise.all([scriptedServer(), scriptedServer()]);
  await h.startOperator({
    WATCH_NAMESPACES: `${h.ns},${attacker.ns}`,
    ALLOWED_CONTROL_PLANE_URLS: forger.url,
    // The platform's agent-server host and port, with no scheme: https only.
    AGENT_SERVER_ALLOWED_HOSTS: new URL(h.sim.url).host,
    NAMESPACE_SECRET_BUDGET: '4Mi',
  });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await Promise.all([forger, unlisted].map((s) => s?.close()));
});

describe('a control plane the administrator has not listed', () => {
  it('gets no request at all: the object is Stalled ControlPlaneNotAllowed, naming the URL and the setting', async () => {
    await putSecret(attacker, 'elsewhere', { apiKey: 'whatever-key-0001', baseUrl: unlisted.url });
    await createAgd(attacker, image('unlisted', { credentialsSecretRef: { name: 'elsewhere' } }));
    const stalled = await eventually(async () => {
      const c = condition(await getAgd(attacker, 'unlisted'), 'Stalled');
      return c?.reason === 'ControlPlaneNotAllowed' ? c : undefined;
    }, 'unlisted Stalled ControlPlaneNotAllowed');
    expect(stalled.message).toContain(unlisted.url);
    expect(stalled.message).toContain('--allowed-control-plane-urls');
    await sleep(1_500);
    expect(unlisted.seen).toEqual([]);
  });
});

describe('an allowed control plane that forges its answers', () => {
  it("plants nothing in another tenant's view: its status, its key and its deployment stay untouched", async () => {
    // The victim: its own credentials, on the real (simulated) control plane.
    await putSecret(h, 'team', { apiKey: TEAM_KEY });
    await createAgd(
      h,
      image('victim', {
        credentialsSecretRef: { name: 'team' },
        sourceConfig: { listenerId: LISTENER, customUrl: 'https://victim.agents.example.com' },
      }),
    );
    const victim = await waitReady(h, 'victim');
    const victimId = victim.status?.deploymentId as string;
    const victimUrl = victim.status?.url;
    expect(victimUrl).toBeTruthy();
    // The victim's deployment as the wire carries it: what the forger will replay.
    const reader = new ControlPlaneClient({ credentials: { baseUrl: h.sim.url, apiKey: TEAM_KEY } });
    const real = await reader.getDeployment(victimId);
    await reader.close();

    // The forger answers every call about the attacker's deployment with the victim's id, and its own URL.
    const forged = (name: string) => ({
      ...real,
      name,
      source_config: { ...real.source_config, custom_url: `${forger.url}/steal` },
      source_revision_config: { image_uri: 'registry.example.com/forged:1' },
      image_version: 'registry.example.com/forged:1',
      secrets: [],
    });
    forger.answer = (req, body, res) => {
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'GET' && path === '/v2/deployments') {
        const query = new URL(req.url ?? '/', 'http://x').searchParams;
        // A lookup by name finds nothing (so it creates); a listing by ids gets the victim's deployment.
        return json(200, {
          resources: query.getAll('deployment_ids').length > 0 ? [forged('attacker-app')] : [],
          offset: 0,
        });
      }
      if (req.method === 'POST' && path === '/v2/deployments') {
        return json(201, forged((JSON.parse(body) as { name: string }).name));
      }
      if (path.startsWith('/v2/deployments/')) return json(200, forged('attacker-app'));
      return json(404, { detail: 'not found' });
    };
    await putSecret(attacker, 'forged', { apiKey: 'attacker-key-0001', baseUrl: forger.url });
    h.sim.resetRequests();
    await createAgd(
      attacker,
      image('attacker-app', {
        credentialsSecretRef: { name: 'forged' },
        sourceRevisionConfig: { imageUri: 'registry.example.com/forged:1' },
      }),
    );
    await eventually(async () => forger.seen.some((r) => r.method === 'POST'), 'the attacker creates');
    // Several polls of both objects (1 s apart) and passes of the victim asked for now, watched throughout:
    // neither object ever shows the other's deployment.
    for (let i = 0; i < 12; i++) {
      if (i % 4 === 0) {
        await mergePatchAgd(h, 'victim', {
          metadata: { annotations: { 'deploy.agents.dev/reconcile-requested-at': `${Date.now()}` } },
        });
      }
      await sleep(500);
      const [v, a] = await Promise.all([getAgd(h, 'victim'), getAgd(attacker, 'attacker-app')]);
      expect(v.status?.url).toBe(victimUrl);
      expect(v.status?.imageVersion).not.toContain('forged');
      expect(a.status?.imageVersion ?? '').not.toContain('victim');
      expect(JSON.stringify(a.status?.conditions ?? [])).not.toContain('"victim"');
    }

    const after = await getAgd(h, 'victim');
    expect(after.status?.url).toBe(victimUrl);
    expect(after.status?.deploymentId).toBe(victimId);
    expect(condition(after, 'Ready')?.status).toBe('True');
    expect(h.sim.requests({ method: 'PATCH' })).toEqual([]);
    expect(forger.seen.filter((r) => r.headers['x-api-key'] === TEAM_KEY)).toEqual([]);
  });
});

describe("the agent-server allow-list's scheme", () => {
  it('an http:// URL under an entry without a scheme (https) gets no request: URLNotAllowed', async () => {
    // A repo_host deployment: the platform assigns its URL, on the simulator's host, over http.
    await createAgd(h, repoHost('plain-http', { verification: { assistantId: 'agent', webhook: false } }));
    const stalled = await eventually(
      async () => {
        const c = condition(await getAgd(h, 'plain-http'), 'Stalled');
        return c?.reason === 'URLNotAllowed' ? c : undefined;
      },
      'plain-http Stalled URLNotAllowed',
      60_000,
    );
    const id = (await getAgd(h, 'plain-http')).status?.deploymentId as string;
    expect(stalled.message).toContain(`${h.sim.url}/deployments/${id}`);
    expect(h.sim.requests().filter((r) => r.path.startsWith(`/deployments/${id}/`))).toEqual([]);
  });
});

describe('the Secret values one object, and one namespace, may make the controller hold', () => {
  /** Three Secrets of 600 KB (800 KB as base64, as held), referenced as secretsFrom by one object. */
  async function heavy(ns: Harness, object: string) {
    const names = [1, 2, 3].map((i) => `${object}-${i}`);
    for (const name of names) await putSecret(ns, name, { BLOB: 'b'.repeat(600_000) });
    await createAgd(ns, image(object, { secretsFrom: names.map((name) => ({ secretRef: { name } })) }));
  }
  const budgetStall = (ns: Harness, name: string) =>
    eventually(
      async () => {
        const c = condition(await getAgd(ns, name), 'Stalled');
        return c?.reason === 'BudgetExceeded' ? c : undefined;
      },
      `${name} Stalled BudgetExceeded`,
      60_000,
    );

  it('an object referencing more than its budget stalls, naming it, and sends nothing', async () => {
    await heavy(attacker, 'heavy-object');
    expect((await budgetStall(attacker, 'heavy-object')).message).toMatch(
      /hold \d+ bytes of values, more than the 2097152 bytes one object may reference/,
    );
    expect(h.sim.deployments().some((d) => d.name === 'heavy-object')).toBe(false);
  });

  it("a namespace's Secrets past its budget are not held: their reader stalls, naming the setting", async () => {
    await heavy(attacker, 'heavier');
    expect((await budgetStall(attacker, 'heavier')).message).toContain('--namespace-secret-budget');
  });
});
