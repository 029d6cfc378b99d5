/**
 * An operator under test: the simulator on loopback, the operator in-process against the run's API
 * server, watching a namespace of its own so test files run side by side. Every log line is kept, so a
 * test can search them (for secret values, for instance).
 */
import { Writable } from 'node:stream';
import type { AgentDeployment } from '../../src/api/agentdeployment.ts';
import { AGENT_DEPLOYMENT, GROUP, VERSION } from '../../src/api/group.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { KubeAccess } from '../../src/kube/access.ts';
import { kubeRequest } from '../../src/kube/request.ts';
import { CONTROLLER_DEPLOYMENT, controllerStandIn } from '../../src/localcluster/controller-stand-in.ts';
import { createLogger } from '../../src/logging.ts';
import { type Operator, startOperator } from '../../src/operator.ts';
import {
  DEFAULT_API_KEY,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.ts';
import { createTestNamespace, kubeAccessFromProvided } from './kube.ts';

export const AGD_PATH = (ns: string) =>
  `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${AGENT_DEPLOYMENT.plural}`;

/** The name of the stand-in for the controller's Deployment each harness namespace holds. */
export { CONTROLLER_DEPLOYMENT };

/** The controller runs in-process, not in a pod: the stand-in for its Deployment (controller-stand-in.ts). */
export async function createControllerDeployment(access: KubeAccess, ns: string): Promise<void> {
  await kubeRequest(access, {
    method: 'POST',
    path: `/apis/apps/v1/namespaces/${ns}/deployments`,
    body: controllerStandIn(ns, 'agent-deployment-operator:test'),
  });
}

export interface Harness {
  ns: string;
  access: KubeAccess;
  sim: Simulator;
  logs: string[];
  operator: Operator;
  config: Config;
  startOperator(overrides?: Partial<Record<string, string>>): Promise<Operator>;
  stop(): Promise<void>;
}

export async function startHarness(
  prefix: string,
  options: { simulator?: SimulatorOptions; env?: Record<string, string>; withOperator?: boolean } = {},
): Promise<Harness> {
  const access = kubeAccessFromProvided();
  const ns = await createTestNamespace(prefix);
  await createControllerDeployment(access, ns);
  const sim = await startSimulator({ revisionStepMs: 50, ...options.simulator });
  const logs: string[] = [];
  const operators: Operator[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const configFor = (overrides: Partial<Record<string, string>> = {}) =>
    loadConfig([], {
      CONTROL_PLANE_URL: sim.url,
      CONTROL_PLANE_API_KEY: DEFAULT_API_KEY,
      WATCH_NAMESPACES: ns,
      POLL_INTERVAL: '1s',
      REVISION_POLL_INTERVAL: '200ms',
      LEADER_ELECT: 'false',
      LEADER_ELECTION_NAMESPACE: ns,
      OPERATOR_DEPLOYMENT: CONTROLLER_DEPLOYMENT,
      HTTP_PORT: '0',
      LOG_LEVEL: 'debug',
      WORKERS: '4',
      ...options.env,
      ...overrides,
    });
  const start = async (overrides?: Partial<Record<string, string>>) => {
    const config = configFor(overrides);
    const logger = createLogger(config.logLevel, sink);
    const op = await startOperator({ config, access, logger });
    operators.push(op);
    return op;
  };
  const config = configFor();
  const operator = options.withOperator === false ? (undefined as unknown as Operator) : await start();
  return {
    ns,
    access,
    sim,
    logs,
    operator,
    config,
    startOperator: start,
    stop: async () => {
      await Promise.all(operators.map((o) => o.stop(1_000)));
      await sim.close();
    },
  };
}

export async function createAgd(h: Harness, obj: Record<string, unknown>): Promise<AgentDeployment> {
  return (await kubeRequest(h.access, {
    method: 'POST',
    path: AGD_PATH(h.ns),
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: AGENT_DEPLOYMENT.kind, ...obj },
  })) as AgentDeployment;
}

export async function getAgd(h: Harness, name: string): Promise<AgentDeployment> {
  return (await kubeRequest(h.access, {
    method: 'GET',
    path: `${AGD_PATH(h.ns)}/${name}`,
  })) as AgentDeployment;
}

export async function mergePatchAgd(h: Harness, name: string, patch: unknown): Promise<AgentDeployment> {
  return (await kubeRequest(h.access, {
    method: 'PATCH',
    path: `${AGD_PATH(h.ns)}/${name}`,
    body: patch,
    contentType: 'application/merge-patch+json',
  })) as AgentDeployment;
}

export async function deleteAgd(h: Harness, name: string): Promise<void> {
  await kubeRequest(h.access, { method: 'DELETE', path: `${AGD_PATH(h.ns)}/${name}` });
}

export async function putSecret(h: Harness, name: string, data: Record<string, string>): Promise<void> {
  const body = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: h.ns },
    stringData: data,
  };
  try {
    await kubeRequest(h.access, { method: 'POST', path: `/api/v1/namespaces/${h.ns}/secrets`, body });
  } catch {
    await kubeRequest(h.access, { method: 'PUT', path: `/api/v1/namespaces/${h.ns}/secrets/${name}`, body });
  }
}

export async function listEvents(
  h: Harness,
  name: string,
): Promise<{ reason: string; message: string; type: string }[]> {
  const list = (await kubeRequest(h.access, {
    method: 'GET',
    path: `/api/v1/namespaces/${h.ns}/events`,
    query: { fieldSelector: `involvedObject.name=${name}` },
  })) as { items: { reason: string; message: string; type: string }[] };
  return list.items;
}

/** Polls until `check` returns a value (not undefined/false), or fails with the last value seen. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (err) {
      last = err instanceof Error ? err.message : err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function condition(obj: AgentDeployment, type: string) {
  return obj.status?.conditions?.find((c) => c.type === type);
}

export async function waitReady(h: Harness, name: string, timeoutMs?: number): Promise<AgentDeployment> {
  return eventually(
    async () => {
      const obj = await getAgd(h, name);
      const ready = condition(obj, 'Ready');
      return ready?.status === 'True' && obj.status?.observedGeneration === obj.metadata.generation
        ? obj
        : undefined;
    },
    `${name} Ready`,
    timeoutMs,
  );
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
