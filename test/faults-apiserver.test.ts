/**
 * kube-apiserver restarted under a running operator, on a cluster of this file's own: the watches break
 * and recover, and nothing made around the restart is missed (creates, updates, a delete).
 */

import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../src/api/agentdeployment.ts';
import { AGENT_DEPLOYMENT, GROUP, VERSION } from '../src/api/group.ts';
import { loadConfig } from '../src/config.ts';
import { type KubeAccess, kubeAccessFromFile } from '../src/kube/access.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { waitCrdsEstablished } from '../src/localcluster/crds-established.ts';
import { type LocalCluster, startLocalCluster } from '../src/localcluster/index.ts';
import { type Operator, startOperator } from '../src/operator.ts';
import { DEFAULT_API_KEY, defaultListeners, type Simulator, startSimulator } from '../src/simulator/index.ts';
import { AGD_PATH, condition, eventually } from './support/harness.ts';
import { runKubectl } from './support/kubectl-runner.ts';

const NS = 'faults-apiserver';
const LISTENER = defaultListeners()[0]?.id as string;
const CRD_DIR = resolve(import.meta.dirname, '../crds');
const image = (version: number) => `registry.example.com/agent:${version}`;
const before = Array.from({ length: 10 }, (_, i) => `before-${i}`);
const after = Array.from({ length: 10 }, (_, i) => `after-${i}`);

let cluster: LocalCluster;
let kc: KubeConfig;
let access: KubeAccess;
let sim: Simulator;
let operator: Operator | undefined;
const logs: Array<{ msg?: string }> = [];
/** The image each remaining object's spec asks for last. */
const expected = new Map<string, string>();

async function kubectl(args: string[]): Promise<string> {
  const result = await runKubectl(cluster.binDir, cluster.kubeconfigPath, args);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

beforeAll(async () => {
  cluster = await startLocalCluster();
  const files = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml'));
  await kubectl(['apply', '--server-side', ...files.flatMap((f) => ['-f', join(CRD_DIR, f)])]);
  await waitCrdsEstablished(join(cluster.binDir, 'kubectl'), ['crd', '--all'], {
    kubectlArgs: ['--kubeconfig', cluster.kubeconfigPath],
  });
  await kubectl(['create', 'namespace', NS]);
  kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  access = kubeAccessFromFile(cluster.kubeconfigPath);
  sim = await startSimulator({ revisionStepMs: 20 });
  const config = loadConfig([], {
    CONTROL_PLANE_URL: sim.url,
    CONTROL_PLANE_API_KEY: DEFAULT_API_KEY,
    WATCH_NAMESPACES: NS,
    POLL_INTERVAL: '2s',
    REVISION_POLL_INTERVAL: '200ms',
    LEADER_ELECT: 'false',
    HTTP_PORT: '0',
    LOG_LEVEL: 'debug',
  });
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
      done();
    },
  });
  operator = await startOperator({ config, access, logger: pino({ level: config.logLevel }, sink) });
});

afterAll(async () => {
  await operator?.stop(1_000);
  await sim?.close();
  await cluster?.stop();
});

/** Right after a restart the API server may still refuse a moment (CRDs not served yet): retry. */
function retried<T>(what: string, call: () => Promise<T>): Promise<T> {
  return eventually(async () => ({ value: await call() }), what, 30_000).then((r) => r.value);
}

function create(name: string, version: number) {
  expected.set(name, image(version));
  return retried(`create ${name}`, () =>
    kubeRequest(access, {
      method: 'POST',
      path: AGD_PATH(NS),
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: AGENT_DEPLOYMENT.kind,
        metadata: { name },
        spec: {
          source: 'external_image',
          sourceConfig: { listenerId: LISTENER },
          sourceRevisionConfig: { imageUri: image(version) },
        },
      },
    }),
  );
}

function changeImage(name: string, version: number) {
  expected.set(name, image(version));
  return retried(`update ${name}`, () =>
    kubeRequest(access, {
      method: 'PATCH',
      path: `${AGD_PATH(NS)}/${name}`,
      body: { spec: { sourceRevisionConfig: { imageUri: image(version) } } },
      contentType: 'application/merge-patch+json',
    }),
  );
}

/** Every expected object Ready on its last spec, and no other object left. */
async function converged(what: string): Promise<AgentDeployment[]> {
  return eventually(
    async () => {
      const list = (await kubeRequest(access, { method: 'GET', path: AGD_PATH(NS) })) as {
        items: AgentDeployment[];
      };
      const pending = [...expected.keys()].filter((name) => {
        const obj = list.items.find((o) => o.metadata.name === name);
        return !(
          obj &&
          condition(obj, 'Ready')?.status === 'True' &&
          obj.status?.observedGeneration === obj.metadata.generation &&
          obj.status?.imageVersion === expected.get(name)
        );
      });
      const extra = list.items.map((o) => o.metadata.name).filter((name) => !expected.has(name));
      if (pending.length > 0 || extra.length > 0)
        throw new Error(`pending: ${pending.join(', ')}; not deleted: ${extra.join(', ')}`);
      return list.items;
    },
    what,
    60_000,
  );
}

describe('kube-apiserver restarted mid-run', () => {
  it('recovers its watches and misses nothing made right after the restart', async () => {
    await Promise.all(before.map((name) => create(name, 1)));
    await converged('objects made before the restart Ready');

    await cluster.restartApiServer();
    // Straight after the restart, before the watches are back: changes, creates and a delete.
    for (const name of before.slice(0, 5)) await changeImage(name, 2);
    await Promise.all(after.map((name) => create(name, 1)));
    const gone = before[9] as string;
    expected.delete(gone);
    await retried(`delete ${gone}`, () =>
      kubeRequest(access, { method: 'DELETE', path: `${AGD_PATH(NS)}/${gone}` }),
    );

    const items = await converged('every object converged after the restart');
    const deployments = sim.deployments();
    for (const obj of items) {
      const own = deployments.filter((d) => d.name === obj.metadata.name);
      expect(
        own.map((d) => d.id),
        obj.metadata.name,
      ).toEqual([obj.status?.deploymentId]);
      expect(own[0]?.source_revision_config.image_uri).toBe(expected.get(obj.metadata.name));
    }
    expect(deployments.filter((d) => d.name === gone)).toEqual([]);
    // The watches really broke and were started again, rather than riding the restart out.
    expect(logs.filter((l) => l.msg === 'list/watch failed; restarting').length).toBeGreaterThan(0);
  });
});
