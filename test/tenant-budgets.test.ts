/**
 * Tenants walled off, second pass (issue 32): the controller against a multi-account control plane (a
 * proxy routing each API key to its own account, so two accounts share one base URL and no tenant id) and
 * scripted hostile servers. One namespace's big objects do not park the shared credential for the others
 * (3); a base URL's spelling mints no identity and a namespace's identities are capped (4); another
 * account's deployments hold no name here, and an object restored without its status adopts its
 * deployment again (7); a server hanging its listing does not slow another identity's poll (8).
 */

import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY, type Simulator, startSimulator } from '../src/simulator/index.ts';
import { deploymentAnswer } from '../src/simulator/test-support.ts';
import { externalImage } from './support/agd-objects.ts';
import {
  condition,
  createAgd,
  deleteAgd,
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

const OTHER_ACCOUNT_KEY = 'other-account-key-0001';

interface Served {
  url: string;
  close(): Promise<void>;
}

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<Served> {
  const server = createServer(handle);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

/** One base URL, two accounts: the other account's key reaches its own simulator, any other key `main`. */
function accountsProxy(main: Simulator, other: Simulator): Promise<Served> {
  return serve((req, res) => {
    const target = new URL(req.headers['x-api-key'] === OTHER_ACCOUNT_KEY ? other.url : main.url);
    const forward = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * An allowed server that creates deployments and answers the breaker's probe (`limit=1`) and name
 * lookups, but never answers a listing by ids: the batched poll's call hangs until its deadline.
 */
function hangingListings(): Promise<Served & { listings: () => number }> {
  let listings = 0;
  const deployment = (name: string) => deploymentAnswer(`hang-${name}`, { name, status: 'DEPLOYING' });
  return serve((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const listing = req.method === 'GET' && url.pathname === '/v2/deployments';
      if (req.method === 'POST' && url.pathname === '/v2/deployments') {
        json(res, 201, deployment((JSON.parse(body) as { name: string }).name));
      } else if (listing && url.searchParams.getAll('deployment_ids').length > 0) {
        listings += 1; // never answered
      } else if (listing) {
        json(res, 200, { resources: [], offset: 0 });
      } else {
        json(res, 404, { detail: 'not found' });
      }
    });
  }).then((served) => ({ ...served, listings: () => listings }));
}

let h: Harness;
let big: Harness;
let other: Harness;
let minted: Harness;
let otherAccount: Simulator;
let proxy: Served;
let hanging: Served & { listings: () => number };

beforeAll(async () => {
  h = await startHarness('budgets', {
    withOperator: false,
    simulator: { apiKeys: [DEFAULT_API_KEY, 'minted-key-1', 'minted-key-2', 'minted-key-3'] },
  });
  big = { ...h, ns: await createTestNamespace('budgets-big') };
  other = { ...h, ns: await createTestNamespace('budgets-other-account') };
  minted = { ...h, ns: await createTestNamespace('budgets-minted') };
  otherAccount = await startSimulator({ revisionStepMs: 50, apiKeys: [OTHER_ACCOUNT_KEY] });
  proxy = await accountsProxy(h.sim, otherAccount);
  hanging = await hangingListings();
  await h.startOperator({
    // The default credentials reach the victim's account through the one base URL both accounts share.
    CONTROL_PLANE_URL: proxy.url,
    WATCH_NAMESPACES: [h.ns, big.ns, other.ns, minted.ns].join(','),
    ALLOWED_CONTROL_PLANE_URLS: hanging.url,
    NAMESPACE_CREDENTIAL_IDENTITIES: '2',
  });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await Promise.all([otherAccount?.close(), proxy?.close(), hanging?.close()]);
});

describe('3: big objects of one namespace on the default credentials', () => {
  it('do not stop the shared poll nor park the credential: the other namespaces are still polled and converge', async () => {
    await createAgd(h, externalImage('steady'));
    await waitReady(h, 'steady');
    // Six objects whose labels and annotations stay within the CRD's bounds (64 entries of 4096
    // characters each) together make one poll page of the shared credential pass its 2 MiB bound.
    const fat = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, 'v'.repeat(4_000)]));
    for (const i of [1, 2, 3, 4, 5, 6]) {
      await createAgd(
        big,
        externalImage(
          `big-${i}`,
          {},
          { resourceSpec: { cpu: 0.5, memoryMb: 512, labels: fat, annotations: fat } },
        ),
      );
    }
    for (const i of [1, 2, 3, 4, 5, 6]) await waitReady(big, `big-${i}`, 60_000);
    // Polls of the page with all of them, 1 s apart: the steady object never hears of a paused circuit.
    for (let i = 0; i < 5; i++) {
      await sleep(1_000);
      const steady = await getAgd(h, 'steady');
      expect(condition(steady, 'Ready')?.status).toBe('True');
      expect(JSON.stringify(steady.status?.conditions)).not.toContain('paused');
    }
    // The shared poll still reads the steady object's deployment: a change behind the operator, made just
    // after a pass of its own (its safety resync is ten intervals away), is seen at the next poll.
    const asked = `${Date.now()}`;
    await mergePatchAgd(h, 'steady', {
      metadata: { annotations: { 'deploy.agents.dev/reconcile-requested-at': asked } },
    });
    const steady = await eventually(async () => {
      const o = await getAgd(h, 'steady');
      return o.status?.lastHandledReconcileAt === asked ? o : undefined;
    }, 'the steady object handles its requested pass');
    h.sim.setDeploymentStatus(steady.status?.deploymentId as string, 'UNKNOWN');
    await eventually(
      async () => condition(await getAgd(h, 'steady'), 'Ready')?.status !== 'True',
      'the steady object sees its deployment change at the next poll',
      5_000,
    );
    h.sim.setDeploymentStatus(steady.status?.deploymentId as string, 'READY');
    await waitReady(h, 'steady', 30_000);
    await createAgd(h, externalImage('arrives-after'));
    await waitReady(h, 'arrives-after', 30_000);
  });
});

describe('8: a server hanging its listing', () => {
  it("does not slow another identity's poll", async () => {
    await putSecret(big, 'hanging', { apiKey: 'hanging-key-0001', baseUrl: hanging.url });
    await createAgd(big, externalImage('hangs', { credentialsSecretRef: { name: 'hanging' } }));
    await eventually(
      async () => hanging.listings() > 0,
      'a listing of the hanging identity under way',
      30_000,
    );
    // Its listing hangs (30 s a call, tried three times); meanwhile the default credentials' poll keeps
    // its pace of one listing a second.
    const before = h.sim.requests({ method: 'GET', route: '/v2/deployments' }).length;
    await sleep(8_000);
    const during = h.sim.requests({ method: 'GET', route: '/v2/deployments' }).length - before;
    expect(during).toBeGreaterThanOrEqual(4);
  });
});

describe('4: credential identities a namespace may mint', () => {
  const waitingOn = (ns: Harness, name: string, reason: string) =>
    eventually(
      async () => {
        const o = await getAgd(ns, name);
        const c = condition(o, 'Reconciling') ?? condition(o, 'Stalled');
        return c?.reason === reason ? c : undefined;
      },
      `${name} ${reason}`,
      30_000,
    );

  it('a base URL with a fragment, a query or user info is refused, naming the field and the rule', async () => {
    for (const [name, baseUrl] of [
      ['fragment', `${proxy.url}/#1`],
      ['query', `${proxy.url}/?n=1`],
      ['userinfo', proxy.url.replace('http://', 'http://me@')],
    ] as const) {
      await putSecret(minted, name, { apiKey: 'minted-key-1', baseUrl });
      await createAgd(minted, externalImage(`by-${name}`, { credentialsSecretRef: { name } }));
      const c = await waitingOn(minted, `by-${name}`, 'InvalidCredentials');
      expect(c.message).toMatch(/baseUrl: must not have a (fragment|query|user name or password)/);
    }
  });

  it('past --namespace-credential-identities, the next identity waits with BudgetExceeded naming it', async () => {
    for (const i of [1, 2]) {
      await putSecret(minted, `key-${i}`, { apiKey: `minted-key-${i}` });
      await createAgd(minted, externalImage(`minted-${i}`, { credentialsSecretRef: { name: `key-${i}` } }));
      await waitReady(minted, `minted-${i}`, 30_000);
    }
    await putSecret(minted, 'key-3', { apiKey: 'minted-key-3' });
    await createAgd(minted, externalImage('minted-3', { credentialsSecretRef: { name: 'key-3' } }));
    const c = await waitingOn(minted, 'minted-3', 'BudgetExceeded');
    expect(c.message).toContain('--namespace-credential-identities');
    expect(h.sim.deployments().some((d) => d.name === 'minted-3')).toBe(false);
  });
});

describe('7: claims across accounts without a tenant id', () => {
  it("another account's deployment holds no name here, and an object restored without its status adopts its own again", async () => {
    // Another platform account (its own key, the same base URL, no tenant id) takes the name first.
    await putSecret(other, 'account', { apiKey: OTHER_ACCOUNT_KEY });
    await createAgd(
      other,
      externalImage('squat', { name: 'payments', credentialsSecretRef: { name: 'account' } }),
    );
    await waitReady(other, 'squat');
    expect(otherAccount.deployments().map((d) => d.name)).toContain('payments');

    await createAgd(h, externalImage('payments'));
    const owner = await waitReady(h, 'payments', 30_000);
    const id = owner.status?.deploymentId as string;
    expect(h.sim.deployments().find((d) => d.id === id)?.name).toBe('payments');

    // Restored without its status: deleted leaving the deployment, applied again, adopted by annotation.
    await mergePatchAgd(h, 'payments', { spec: { deletionPolicy: 'Orphan' } });
    await deleteAgd(h, 'payments');
    await eventually(
      async () =>
        getAgd(h, 'payments').then(
          () => false,
          () => true,
        ),
      'payments gone',
    );
    await createAgd(h, {
      ...externalImage('payments'),
      metadata: { name: 'payments', annotations: { 'deploy.agents.dev/adopt-deployment-id': id } },
    });
    const adopted = await waitReady(h, 'payments', 30_000);
    expect(adopted.status?.deploymentId).toBe(id);
  });
});
