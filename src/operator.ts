/**
 * The operator assembled from its parts: Kubernetes client, control-plane pools, informers, work queue,
 * leader election, workers and the HTTP endpoints. main.ts runs it as a process; tests run it in-process
 * with a config of their own.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { startAgentDeploymentController } from './controllers/agentdeployment/index.ts';
import { startSandboxTemplateController } from './controllers/sandboxtemplate/index.ts';
import { ControlPlanePools } from './controlplane/pools.ts';
import { startHttpEndpoints } from './http.ts';
import { type RunningController, runController } from './runtime/controller.ts';
import { EventRecorder } from './runtime/events.ts';
import { type LeaderElector, startLeaderElection } from './runtime/leader.ts';
import { WorkQueue } from './runtime/workqueue.ts';

export interface Operator {
  /** Port the health and metrics endpoints listen on. */
  httpPort: number;
  isLeader(): boolean;
  /** Graceful: stop taking work, let in-flight reconciles finish (up to graceMs), release the lease. */
  stop(graceMs?: number): Promise<void>;
}

export interface OperatorOptions {
  config: Config;
  kc: KubeConfig;
  logger: Logger;
  /** Called when leadership is lost: the process must stop writing (main exits). */
  onLostLeadership?: () => void;
}

/** The key of the secrets digest: configured, or derived from the default credential so it is stable. */
function digestKey(config: Config): string {
  if (config.secretsDigestKey) return config.secretsDigestKey;
  const seed = config.controlPlaneApiKey ?? config.controlPlaneBearerToken ?? 'no-default-credentials';
  return createHmac('sha256', 'agent-deployment-operator/secrets-digest').update(seed).digest('hex');
}

export async function startOperator(options: OperatorOptions): Promise<Operator> {
  const { config, kc, logger } = options;
  const identity = `${config.podName ?? hostname()}_${randomBytes(4).toString('hex')}`;
  const pools = new ControlPlanePools();
  const events = new EventRecorder({
    kc,
    component: 'agent-deployment-operator',
    instance: identity,
    logger,
  });
  const queue = new WorkQueue({ qps: config.controlPlaneQps, burst: config.controlPlaneQps * 2 });

  const defaultCredentials = {
    ...(config.controlPlaneUrl ? { baseUrl: config.controlPlaneUrl } : {}),
    ...(config.controlPlaneApiKey ? { apiKey: config.controlPlaneApiKey } : {}),
    ...(config.controlPlaneBearerToken ? { bearerToken: config.controlPlaneBearerToken } : {}),
    ...(config.controlPlaneTenantId ? { tenantId: config.controlPlaneTenantId } : {}),
  };
  const agentDeployments = startAgentDeploymentController({
    kc,
    queue,
    pools,
    events,
    logger,
    namespaces: config.watchNamespaces,
    labelSelector: config.labelSelector,
    settings: {
      defaultCredentials,
      digestKey: digestKey(config),
      pollIntervalMs: config.pollInterval,
      revisionPollMs: config.revisionPollInterval,
    },
  });

  // A queue of its own: its keys are namespace/name too, and must not merge with AgentDeployment keys.
  const templateQueue = new WorkQueue({ qps: config.controlPlaneQps, burst: config.controlPlaneQps * 2 });
  const sandboxTemplates = startSandboxTemplateController({
    kc,
    queue: templateQueue,
    pools,
    events,
    logger,
    namespaces: config.watchNamespaces,
    labelSelector: config.labelSelector,
    secrets: agentDeployments.secrets,
    defaultCredentials,
    pollIntervalMs: config.templatePollInterval ?? config.pollInterval,
    importNamespace: config.importTemplatesNamespace,
  });

  let workers: RunningController | undefined;
  let templateWorkers: RunningController | undefined;
  const startWorkers = () => {
    if (workers) return;
    logger.info({ identity }, 'starting workers');
    workers = runController({
      name: 'agentdeployment',
      queue,
      workers: config.workers,
      logger,
      reconcile: (key, ctx) => agentDeployments.reconciler.reconcile(key, ctx.log),
    });
    templateWorkers = runController({
      name: 'sandboxtemplate',
      queue: templateQueue,
      workers: config.workers,
      logger,
      reconcile: (key, ctx) => sandboxTemplates.reconcile(key, ctx.log),
    });
  };

  let elector: LeaderElector | undefined;
  if (config.leaderElect) {
    elector = startLeaderElection({
      kc,
      namespace: config.leaderElectionNamespace ?? config.podNamespace ?? 'default',
      name: config.leaderElectionId,
      identity,
      logger,
      onStartedLeading: startWorkers,
      onStoppedLeading: () => {
        logger.error('lost leadership; stopping');
        void workers?.stop(0);
        void templateWorkers?.stop(0);
        options.onLostLeadership?.();
      },
    });
  } else {
    startWorkers();
  }

  const http = await startHttpEndpoints({
    port: config.httpPort,
    logger,
    ready: () => agentDeployments.hasSynced() && sandboxTemplates.hasSynced(),
  });

  return {
    httpPort: http.port,
    isLeader: () => (elector ? elector.isLeader() : true),
    stop: async (graceMs = 10_000) => {
      queue.shutdown();
      templateQueue.shutdown();
      await Promise.all([workers?.stop(graceMs), templateWorkers?.stop(graceMs)]);
      await elector?.release();
      await Promise.all([agentDeployments.stop(), sandboxTemplates.stop()]);
      await pools.close();
      await http.close();
    },
  };
}
