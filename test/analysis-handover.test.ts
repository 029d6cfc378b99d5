/**
 * An analysis moving between replicas under --sharding=auto (controller processes against the run's API
 * server and the simulator): objects measured once by the only replica, then a second replica joins and
 * the objects it is assigned are handed over to it (when it is assigned none, the first replica is
 * killed and the second takes every object over). Each analysis goes on from status.analysis: every
 * metric's endpoint is asked exactly `count` times, never a measurement repeated.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { assigneeOf } from '../src/runtime/shard-assignment.ts';
import { externalImage } from './support/agd-objects.ts';
import { type ControllerProcess, startControllerProcess } from './support/controller-process.ts';
import { createAgd, eventually, getAgd, type Harness, startHarness } from './support/harness.ts';
import { LeaseHistory } from './support/shard-audit.ts';
import { shardedReplicaEnv } from './support/sharded-replica.ts';

const GROUP = 'analysis-handover';
const COUNT = 2;
const names = Array.from({ length: 8 }, (_, i) => `handover-${i}`);
const requests = new Map<string, number>();
let web: Server;
let webUrl: string;
let h: Harness;
const history = new LeaseHistory();
const replicas = new Map<string, ControllerProcess>();
const output: string[] = [];

beforeAll(async () => {
  web = createServer((req, res) => {
    const path = req.url ?? '';
    requests.set(path, (requests.get(path) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"rate": 0.01}');
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  h = await startHarness('analysis-handover', { withOperator: false });
  await history.start(h.access, h.ns, GROUP);
});

afterAll(async () => {
  await Promise.all([...replicas.values()].map((r) => r.kill()));
  await history.stop();
  await h?.stop();
  await new Promise((resolve) => web?.close(resolve));
});

async function startReplica(pod: string): Promise<void> {
  const env = {
    ...shardedReplicaEnv(h, pod, GROUP, { duration: '10s', renewDeadline: '6s', retryPeriod: '1s' }),
    ANALYSIS_ALLOWED_URLS: `${webUrl}/`,
  };
  const started = startControllerProcess(env, output, pod);
  replicas.set(pod, started);
  await started.waitForLine((line) => line.includes('caches synced; starting workers'));
}

const measured = (obj: AgentDeployment) => obj.status?.analysis?.metrics[0]?.measured ?? 0;

describe('an analysis handed over between replicas', () => {
  it('goes on where status says, repeating no measurement', { timeout: 180_000 }, async () => {
    await startReplica('replica-a');
    for (const name of names) {
      const metric = {
        name: 'errors',
        web: { url: `${webUrl}/${name}`, jsonPath: '{$.rate}' },
        successCondition: 'result < 0.1',
      };
      await createAgd(
        h,
        externalImage(name, { analysis: { count: COUNT, interval: '10s', metrics: [metric] } }),
      );
    }
    for (const name of names)
      await eventually(async () => measured(await getAgd(h, name)) >= 1, `${name} measured once`, 60_000);

    await startReplica('replica-b');
    const identities = await eventually(
      async () => {
        const live = history.liveAt(Date.now());
        const agreed = live.length === 2 && new Set(live.map((m) => m.acknowledged.join(','))).size === 1;
        return agreed ? live.map((m) => m.identity).sort() : undefined;
      },
      'both members agree',
      60_000,
    );
    const joiner = identities.find((id) => id.startsWith('replica-b_')) as string;
    const handedOver = names.filter((name) => assigneeOf(`${h.ns}/${name}`, identities) === joiner);
    // Assigned none (rare): the first replica dies and the second takes every object over.
    if (handedOver.length === 0) await replicas.get('replica-a')?.kill();

    for (const name of names) {
      const done = await eventually(
        async () => {
          const obj = await getAgd(h, name);
          return obj.status?.analysis?.phase === 'Successful' ? obj : undefined;
        },
        `${name} Successful`,
        90_000,
      );
      expect(done.status?.analysis?.metrics[0]).toMatchObject({ measured: COUNT, successful: COUNT });
      expect(requests.get(`/${name}`)).toBe(COUNT);
    }
  });
});
