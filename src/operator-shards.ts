/**
 * The operator's side of `--sharding=auto`: the replica's shard membership (runtime/shard-membership.ts)
 * wired to both kinds (their keys, the queues that take what is gained, the poll that forgets what
 * is lost), the template import on the one member it is assigned to, and the shard metrics. operator.ts
 * makes the queues take only this replica's share (work.admits) and checks every pass
 * (work.whileAssigned).
 */
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { AgentDeploymentController } from './controllers/agentdeployment/index.ts';
import type { SandboxTemplateController } from './controllers/sandboxtemplate/index.ts';
import type { KubeAccess } from './kube/access.ts';
import { memoByChanges } from './lib/memo-by-changes.ts';
import type { OperatorMetrics, ShardObjects } from './metrics.ts';
import { objectKey } from './runtime/keys.ts';
import { type ShardMembership, startShardMembership } from './runtime/shard-membership.ts';
import { type ShardedKind, ShardedWork } from './runtime/sharded-work.ts';
import type { WorkQueue } from './runtime/workqueue.ts';

/** A SandboxTemplate's key is hashed with this in front (an AgentDeployment's key as it is). */
export const TEMPLATE_SHARD_PREFIX = 'SandboxTemplate:';
/** The template importer runs on the member this key is assigned to. */
const IMPORTER_SHARD_KEY = 'importer';

export interface ShardWiring {
  agentDeployments: AgentDeploymentController;
  sandboxTemplates: SandboxTemplateController;
  templateQueue: WorkQueue;
  /** The first batched listing of the keys a replica gains, which enqueues them (a takeover). */
  primeListing: (keys: readonly string[]) => void;
  /** Membership lost: stop every pass at once (the process then exits). */
  onLost: () => void;
}

export class OperatorShards {
  readonly work = new ShardedWork(
    () => this.#membership,
    (prefix, gained, ms) =>
      this.#logger.info(
        { kind: prefix === '' ? 'AgentDeployment' : 'SandboxTemplate', gained, ms: Math.round(ms) },
        'gained objects reconciled',
      ),
  );
  readonly #config: Config;
  readonly #access: KubeAccess;
  readonly #identity: string;
  readonly #logger: Logger;
  readonly #metrics: OperatorMetrics;
  #membership: ShardMembership | undefined;
  #standbyTimer: ReturnType<typeof setTimeout> | undefined;
  /** Aborted on leaving: a read of the standby under way ends. */
  readonly #leaving = new AbortController();

  constructor(deps: {
    config: Config;
    access: KubeAccess;
    identity: string;
    logger: Logger;
    metrics: OperatorMetrics;
  }) {
    this.#config = deps.config;
    this.#access = deps.access;
    this.#identity = deps.identity;
    this.#logger = deps.logger;
    this.#metrics = deps.metrics;
  }

  get joined(): boolean {
    return this.#membership !== undefined;
  }

  /** Joins the group (once the caches are warm); resolves when this replica holds its share. */
  join(wiring: ShardWiring): Promise<void> {
    const { agentDeployments, sandboxTemplates, templateQueue } = wiring;
    const objects: ShardedKind = {
      prefix: '',
      keys: () => agentDeployments.objects.list().map(objectKey),
      // The first listing of what it gains enqueues it (the changed first, the settled unchanged
      // without a token of the pace: agentdeployment/first-listing.ts).
      gained: (keys) => wiring.primeListing(keys),
      // The poll forgets them; the cache keeps projections of them (cached-share.ts).
      lost: (keys) => agentDeployments.release(keys),
      awaitingRead: () => agentDeployments.awaitingRead(),
      changes: () => agentDeployments.changes(),
    };
    const kinds: ShardedKind[] = [
      objects,
      {
        prefix: TEMPLATE_SHARD_PREFIX,
        keys: () => sandboxTemplates.objects.list().map(objectKey),
        gained: (keys) => {
          for (const key of keys) templateQueue.add(key);
        },
        lost: () => {},
        changes: () => sandboxTemplates.objects.changes(),
      },
    ];
    const config = this.#config;
    const membership = startShardMembership({
      access: this.#access,
      namespace: config.leaderElectionNamespace ?? config.podNamespace ?? 'default',
      group: config.leaderElectionId,
      identity: this.#identity,
      leaseDurationMs: config.leaderElectionLeaseDuration,
      renewDeadlineMs: config.leaderElectionRenewDeadline,
      retryPeriodMs: config.leaderElectionRetryPeriod,
      logger: this.#logger,
      running: () => this.work.running(),
      onChange: () => {
        this.work.changed(kinds);
        this.#readStandbyLater(agentDeployments);
        const importer = sandboxTemplates.importer;
        if (!importer) return;
        if (this.work.mayWork('', IMPORTER_SHARD_KEY)) importer.start();
        else importer.stop();
      },
      onSettled: (ms) => {
        this.#logger.info({ ms: Math.round(ms) }, 'new share held');
        this.#metrics.shardHandovers.inc();
        this.#metrics.shardTakeover.observe(ms / 1000);
      },
      onLost: wiring.onLost,
    });
    this.#membership = membership;
    this.#watchMetrics(kinds);
    return membership.joined;
  }

  /** Leaves the group (its Lease deleted): call once no pass runs. */
  async release(): Promise<void> {
    clearTimeout(this.#standbyTimer);
    this.#leaving.abort();
    await this.#membership?.release();
  }

  /**
   * What this replica stands by for changes with the members; what it holds of that as projections
   * is read in full once the members changed and no key gained awaits its first pass (checked every
   * retry period): not during a takeover, whose passes it would slow, and most often before the next.
   */
  #readStandbyLater(
    agentDeployments: AgentDeploymentController,
    delayMs = standbyReadDelayMs(this.#config.leaderElectionRetryPeriod),
  ): void {
    clearTimeout(this.#standbyTimer);
    this.#standbyTimer = setTimeout(() => {
      if (this.work.awaitingPass('') > 0) {
        this.#readStandbyLater(agentDeployments, this.#config.leaderElectionRetryPeriod);
        return;
      }
      const startedAt = performance.now();
      agentDeployments
        .readStandby(this.#leaving.signal)
        .then((read) => {
          if (read > 0)
            this.#logger.info(
              { read, readMs: Math.round(performance.now() - startedAt) },
              'objects this replica stands by for read in full',
            );
        })
        .catch((err) =>
          this.#logger.warn(
            { error: err instanceof Error ? err.message : String(err) },
            'objects this replica stands by for not read in full; a takeover reads them',
          ),
        );
    }, delayMs);
    this.#standbyTimer.unref?.();
  }

  #watchMetrics(kinds: readonly ShardedKind[]): void {
    const [objects, templates] = kinds.map((kind) => {
      // What walks every cached key is counted again only once the cache or the members' view changed.
      const census = memoByChanges(
        () => [kind.changes(), this.work.views()],
        () => {
          const prefixed = function* () {
            for (const key of kind.keys()) yield kind.prefix + key;
          };
          const { assigned, unassigned } = this.#membership?.census(prefixed()) ?? {
            assigned: 0,
            unassigned: 0,
          };
          return { assigned, unassigned, awaitingRead: kind.awaitingRead?.() ?? 0 };
        },
      );
      return () => ({ ...census(), awaitingPass: this.work.awaitingPass(kind.prefix) });
    }) as [() => Omit<ShardObjects, 'kind'>, () => Omit<ShardObjects, 'kind'>];
    this.#metrics.watchShards(
      () => [
        { kind: 'AgentDeployment', ...objects() },
        { kind: 'SandboxTemplate', ...templates() },
      ],
      () => this.#membership?.members().length ?? 0,
    );
  }
}

/**
 * How long after a change of members a replica that gained nothing waits before it reads what it now
 * stands by for: 3 to 8 retry periods, at random. Every member's standby changes at once, and each read
 * lists whole namespaces; read together, and beside a joining replica's takeover, the listings held the
 * API server long enough for every member's Lease renewal to time out (10,000 objects over 3, 2 cores).
 */
export function standbyReadDelayMs(retryPeriodMs: number, random: () => number = Math.random): number {
  return Math.round(retryPeriodMs * (3 + 5 * random()));
}
