/**
 * The operator assembled from its parts: Kubernetes client, control-plane pools, informers, work queue,
 * leader election, workers and the HTTP endpoints. main.ts runs it as a process; tests run it in-process
 * with a config of their own.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { analyst as makeAnalyst } from './analysis/analyst.ts';
import type { Config } from './config.ts';
import { startAgentDeploymentController } from './controllers/agentdeployment/index.ts';
import { startSandboxTemplateController } from './controllers/sandboxtemplate/index.ts';
import { circuitReporter } from './controlplane/circuit-report.ts';
import { defaultCredentialsScope } from './controlplane/default-credentials-scope.ts';
import { ControlPlanePools } from './controlplane/pools.ts';
import { startHttpEndpoints } from './http.ts';
import type { KubeAccess } from './kube/access.ts';
import { Agent } from './lib/undici.ts';
import { OperatorMetrics } from './metrics.ts';
import { watchObjectMetrics } from './operator-metrics.ts';
import { OperatorShards, TEMPLATE_SHARD_PREFIX } from './operator-shards.ts';
import { kindQueue, startKindWorkers } from './operator-workers.ts';
import type { Reconciler, RunningController } from './runtime/controller.ts';
import { EventRecorder } from './runtime/events.ts';
import { type LeaderElector, startLeaderElection } from './runtime/leader.ts';
import { NamespaceSync } from './runtime/namespace-sync.ts';
import { OperatorKeySecret, secretsDigestKeyFrom } from './runtime/operator-key.ts';
import { ownNamespaceOf, publishOwnSettings } from './runtime/publish-settings.ts';
import { writeFence } from './runtime/write-fence.ts';
import { RunReports } from './verification/run-reports.ts';
import { Verifier } from './verification/verifier.ts';
import { userAgent } from './version.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhooks/receiver.ts';
import { deriveRunToken } from './webhooks/token.ts';

export interface Operator {
  /** Port the health and metrics endpoints listen on. */
  httpPort: number;
  /** Port of the webhook receiver, when it runs (--webhook-port). */
  webhookPort?: number;
  isLeader(): boolean;
  /** Graceful: stop taking work, let in-flight reconciles finish (up to graceMs), release the lease. */
  stop(graceMs?: number): Promise<void>;
}

export interface OperatorOptions {
  config: Config;
  access: KubeAccess;
  logger: Logger;
  /** Called when leadership is lost: the process must stop writing (main exits). */
  onLostLeadership?: () => void;
}

/**
 * The key of the secrets digest: configured, or derived from the operator's own key Secret. It must stay
 * the same across restarts and credential rotations: a new key changes every digest, which reads as
 * rotated secrets and redeploys every deployment.
 */
async function digestKey(config: Config, operatorKey: OperatorKeySecret): Promise<string> {
  if (config.secretsDigestKey) return config.secretsDigestKey;
  return secretsDigestKeyFrom(await operatorKey.get());
}

export async function startOperator(options: OperatorOptions): Promise<Operator> {
  const { config, access, logger } = options;
  const identity = `${config.podName ?? hostname()}_${randomBytes(4).toString('hex')}`;
  const metrics = new OperatorMetrics();
  const apiServerHost = new URL(access.server).host;
  access.countRequests((method, code) => metrics.runtime.restClientRequest(apiServerHost, method, code));
  // Set once the AgentDeployment controller exists (its poll tells which identities stay in use).
  let polledIdentity: ((namespace: string, identity: string) => boolean) | undefined;
  const pools = new ControlPlanePools({
    limits: { rps: config.controlPlaneRps, concurrency: config.controlPlaneConcurrency },
    namespaceIdentities: config.namespaceCredentialIdentities,
    inUse: (namespace, identity) => polledIdentity?.(namespace, identity) ?? false,
    onCircuit: circuitReporter(
      logger.child({ component: 'controlplane' }),
      metrics.controlPlaneCircuitTransitions,
    ),
    clientDefaults: {
      userAgent: userAgent(identity),
      timeouts: { totalMs: config.controlPlaneTimeout },
      onRequest: (e) => {
        metrics.controlPlaneRequests.inc({ operation: e.operation, code: String(e.status) });
        metrics.controlPlaneLatency.observe({ operation: e.operation }, e.durationMs / 1000);
      },
    },
  });
  const events = new EventRecorder({
    access,
    component: 'agent-deployment-operator',
    instance: identity,
    logger,
  });
  // One queue per kind: both use namespace/name keys, which must not merge across kinds. Each is fair
  // across tenants, with reserve workers (the kind's controller tells a key's tenant once it runs).
  const tenants: Record<string, ((key: string) => string | undefined) | undefined> = {};
  // --sharding=auto: each replica's queues take only its share, and a pass starts only while it may.
  const shards =
    config.sharding === 'auto'
      ? new OperatorShards({ config, access, identity, logger, metrics })
      : undefined;
  const sharded = shards?.work;
  const newQueue = (kind: string, shardPrefix = '') =>
    kindQueue(kind, { config, metrics, sharded, shardPrefix, tenantOf: (key) => tenants[kind]?.(key) });
  const queue = newQueue('AgentDeployment');
  const templateQueue = newQueue('SandboxTemplate', TEMPLATE_SHARD_PREFIX);

  const defaultCredentials = {
    ...(config.controlPlaneUrl ? { baseUrl: config.controlPlaneUrl } : {}),
    ...(config.controlPlaneApiKey ? { apiKey: config.controlPlaneApiKey } : {}),
    ...(config.controlPlaneBearerToken ? { bearerToken: config.controlPlaneBearerToken } : {}),
    ...(config.controlPlaneTenantId ? { tenantId: config.controlPlaneTenantId } : {}),
  };
  // The operator's key Secret in its own namespace (read or created on first use): it keys the webhook
  // tokens and, unless one is configured, the secrets digest. Verification gets connections of its own.
  const agentServers = new Agent({ connections: 8, keepAliveTimeout: 30_000, connectTimeout: 5_000 });
  const operatorKey = new OperatorKeySecret(access, ownNamespaceOf(config));
  // What changes a verdict, published where `kubectl agd plan` reads it. Not fatal: a plan then says
  // unknown, and the controller works as configured.
  await publishOwnSettings(access, config).catch((err: unknown) =>
    logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'could not publish the settings kubectl agd plan reads',
    ),
  );
  const tokenFor = async (uid: string, threadId: string) =>
    deriveRunToken(await operatorKey.get(), uid, threadId);
  const reports = new RunReports();
  const verifier = new Verifier({
    dispatcher: agentServers,
    allowedHosts: config.agentServerHosts,
    internalAddresses: config.agentServerInternalAddresses,
    backoffBaseMs: config.verificationBackoff,
    ...(config.webhookBaseUrl ? { webhook: { baseUrl: config.webhookBaseUrl, tokenFor, reports } } : {}),
    now: () => new Date(),
  });
  const analyst = makeAnalyst({
    urls: config.analysisUrls,
    allowedHosts: config.agentServerHosts,
    internalAddresses: config.agentServerInternalAddresses,
    controllerDispatcher: agentServers,
    onMeasurement: (outcome, provider) => metrics.analysisMeasurements.inc({ outcome, provider }),
  });
  const agentDeployments = startAgentDeploymentController({
    access,
    queue,
    pools,
    events,
    logger,
    namespaces: config.watchNamespaces,
    labelSelector: config.labelSelector,
    namespaceSecretBudget: config.namespaceSecretBudget,
    defaultCredentialsScope: defaultCredentialsScope({
      namespaces: config.defaultCredentialsNamespaces,
      namespaceSelector: config.defaultCredentialsNamespaceSelector,
    }),
    namespaceDeploymentBudget: config.namespaceDeploymentBudget,
    // What is neither assigned to this replica nor stood by for is cached as a projection (cached-share.ts).
    // Until it joins, all in full: its first member list projects the rest, and what it keeps needs no GET.
    ...(shards && sharded
      ? {
          assigned: (key: string) => !shards.joined || sharded.admits('', key),
          standsBy: (key: string) => sharded.standsBy('', key),
        }
      : {}),
    settings: {
      defaultCredentials,
      allowedControlPlanes: config.allowedControlPlanes,
      digestKey: await digestKey(config, operatorKey),
      pollIntervalMs: config.pollInterval,
      revisionPollMs: config.revisionPollInterval,
      reconcileRate: config.reconcileRate,
      verifier,
      analyst,
      // Each write to the platform only while this replica's Lease outlasts it (write-fence.ts).
      writeFence: writeFence(
        sharded
          ? { heldUntil: () => sharded.heldUntil(), mayWork: (key) => sharded.mayWork('', key) }
          : config.leaderElect
            ? { heldUntil: () => elector?.heldUntil() ?? Number.NEGATIVE_INFINITY }
            : {},
      ),
    },
  });
  tenants.AgentDeployment = agentDeployments.tenantOf;
  polledIdentity = (namespace, identity) => agentDeployments.observer.uses(namespace, identity);
  const sandboxTemplates = startSandboxTemplateController({
    access,
    queue: templateQueue,
    pools,
    events,
    logger,
    namespaces: config.watchNamespaces,
    labelSelector: config.labelSelector,
    secrets: agentDeployments.secrets,
    defaultCredentials,
    allowedControlPlanes: config.allowedControlPlanes,
    defaultCredentialsScope: agentDeployments.defaultCredentialsScope,
    pollIntervalMs: config.templatePollInterval ?? config.pollInterval,
    importNamespace: config.importTemplatesNamespace,
    namespaceTemplateBudget: config.namespaceTemplateBudget,
    passDeadlineMs: config.reconcileTimeout,
  });
  tenants.SandboxTemplate = sandboxTemplates.tenantOf;
  watchObjectMetrics(metrics, agentDeployments, sandboxTemplates, sharded);

  const namespaces = new NamespaceSync([
    agentDeployments.objects,
    agentDeployments.secrets,
    sandboxTemplates.objects,
  ]);
  metrics.watchNamespaces(() => namespaces.states());
  metrics.watchWindowHolds(() => agentDeployments.windowPolicies.holds.heldCounts());
  // Every namespace listed or failing: one that cannot be listed (403) must not hold up the others.
  const synced = () => namespaces.settled();
  let stopping: Promise<void> | undefined;
  let running: RunningController[] | undefined;
  let startingWorkers = false;
  const startWorkers = async () => {
    if (running || startingWorkers) return;
    startingWorkers = true;
    // A reconcile on half-filled caches would report Secrets missing that are only not listed yet.
    while (!synced()) await sleep(100);
    startingWorkers = false;
    if (stopping) return;
    for (const s of namespaces.unsynced()) {
      logger.error(
        { namespace: s.namespace, informer: s.informer, error: s.error },
        'namespace cannot be listed; its objects wait, the other namespaces reconcile',
      );
    }
    if (shards) {
      // Joined once warm: a member claims objects only when it can work on them at once.
      const joined = shards.join({
        agentDeployments,
        sandboxTemplates,
        templateQueue,
        primeListing: (keys) => void primeListing(keys),
        // main exits so a fresh process joins again under a new identity.
        onLost: stopWriting,
      });
      await Promise.race([joined, stoppingSignal.promise]);
      if (stopping) return;
    }
    logger.info({ identity }, 'caches synced; starting workers');
    metrics.leader.set(1);
    // Before the first passes: the deployments objects already record are listed, not read one by one
    // (under --sharding=auto, those of the share; a takeover lists what it gains the same way).
    if (!sharded) void primeListing();
    agentDeployments.observer.start();
    if (!sharded) sandboxTemplates.importer?.start();
    // A policy's status counts every object it holds: only a replica that works on all of them writes it
    // (not a share under --sharding=auto; a release watching some namespaces: windowpolicy/index.ts).
    if (!sharded)
      agentDeployments.windowPolicies.holds.start(
        agentDeployments.windowPolicies.list().map((p) => p.metadata.name),
      );
    running = [
      startKindWorkers(
        'AgentDeployment',
        queue,
        config.workers + config.reserveWorkers,
        config.reconcileTimeout,
        logger,
        metrics,
        assigned('', agentDeployments.reconcile),
        (ns) => namespaces.ready(ns),
      ),
      startKindWorkers(
        'SandboxTemplate',
        templateQueue,
        config.workers + config.reserveWorkers,
        config.reconcileTimeout,
        logger,
        metrics,
        assigned(TEMPLATE_SHARD_PREFIX, sandboxTemplates.reconcile),
        (ns) => namespaces.ready(ns),
      ),
    ];
  };
  // Under --sharding=auto a pass starts only while this replica may work on its key.
  const assigned = (prefix: string, reconcile: Reconciler) =>
    sharded ? sharded.whileAssigned(prefix, reconcile) : reconcile;
  let priming: Promise<void> | undefined;
  /**
   * The first batched listing (all objects, or the keys a replica just gained), one at a time. With
   * none under way it starts at once, so it holds the passes it lists before any worker starts one.
   */
  const primeListing = (keys?: readonly string[]) => {
    const run = () =>
      agentDeployments
        .prime(keys)
        .catch((err: unknown) =>
          logger.warn(
            { error: err instanceof Error ? err.message : String(err) },
            'first batched listing failed',
          ),
        );
    const next: Promise<void> = priming ? priming.then(run) : run();
    priming = next;
    void next.finally(() => {
      if (priming === next) priming = undefined;
    });
    return next;
  };
  const stoppingSignal = Promise.withResolvers<void>();
  const stopWorkers = (graceMs: number) => Promise.all((running ?? []).map((w) => w.stop(graceMs)));
  /** The work (shard membership or leadership) is lost: stop writing at once. */
  const stopWriting = () => {
    metrics.leader.set(0);
    agentDeployments.observer.stop();
    sandboxTemplates.importer?.stop();
    agentDeployments.windowPolicies.holds.stop();
    void stopWorkers(0);
    options.onLostLeadership?.();
  };

  let elector: LeaderElector | undefined;
  if (config.leaderElect && !sharded) {
    elector = startLeaderElection({
      access,
      namespace: config.leaderElectionNamespace ?? config.podNamespace ?? 'default',
      name: config.leaderElectionId,
      identity,
      leaseDurationMs: config.leaderElectionLeaseDuration,
      renewDeadlineMs: config.leaderElectionRenewDeadline,
      retryPeriodMs: config.leaderElectionRetryPeriod,
      logger,
      onStartedLeading: () => void startWorkers(),
      onStoppedLeading: () => {
        // main exits so a fresh process campaigns again.
        logger.error('lost leadership; stopping');
        stopWriting();
      },
    });
  } else {
    void startWorkers();
  }

  let receiver: WebhookReceiver | undefined;
  if (config.webhookPort !== undefined) {
    receiver = await startWebhookReceiver({
      port: config.webhookPort,
      logger,
      uidOf: (namespace, name) => agentDeployments.objects.get(namespace, name)?.metadata.uid,
      awaitedThread: (key) => reports.awaitedThread(key),
      tokenFor,
      onReport: (key, report) => {
        const accepted = reports.report(key, report);
        if (accepted) queue.add(key);
        return accepted;
      },
    });
  }

  const http = await startHttpEndpoints({
    port: config.httpPort,
    logger,
    registry: metrics.registry,
    // A leader is ready once its workers run; a follower once its caches are warm for a takeover.
    // A member once its workers run.
    ready: () =>
      synced() && (sharded ? running !== undefined : !elector?.isLeader() || running !== undefined),
    detail: () => namespaces.detail(),
  });

  return {
    httpPort: http.port,
    ...(receiver ? { webhookPort: receiver.port } : {}),
    isLeader: () => (shards ? running !== undefined && shards.joined : elector ? elector.isLeader() : true),
    // Idempotent: a second call waits for the first shutdown.
    stop: (graceMs = 10_000) => {
      stopping ??= (async () => {
        stoppingSignal.resolve();
        queue.shutdown();
        templateQueue.shutdown();
        agentDeployments.observer.stop();
        sandboxTemplates.importer?.stop();
        await stopWorkers(graceMs);
        await elector?.release();
        // Every pass ended: its share goes to the others at once.
        await shards?.release();
        await Promise.all([agentDeployments.stop(), sandboxTemplates.stop()]);
        await pools.close();
        await receiver?.close();
        await agentServers.close();
        await verifier.close();
        await analyst.close();
        await http.close();
      })();
      return stopping;
    },
  };
}
