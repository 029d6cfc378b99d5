/**
 * Where the object gauges count from: each kind's informer cache, read when scraped. Under
 * --sharding=auto a replica counts only the objects assigned to it, so the sums across replicas are right (what
 * it caches of the others are projections, without conditions); and what the AgentDeployment cache
 * holds in full and as projections (agent_operator_cached_objects).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { fullObject, isProjection } from './controllers/agentdeployment/cache/projection.ts';
import type { AgentDeploymentController } from './controllers/agentdeployment/index.ts';
import type { SandboxTemplateController } from './controllers/sandboxtemplate/index.ts';
import type { OperatorMetrics } from './metrics.ts';
import { TEMPLATE_SHARD_PREFIX } from './operator-shards.ts';
import { objectKey } from './runtime/keys.ts';
import type { ShardedWork } from './runtime/sharded-work.ts';

export function watchObjectMetrics(
  metrics: OperatorMetrics,
  agentDeployments: Pick<AgentDeploymentController, 'objects'>,
  sandboxTemplates: Pick<SandboxTemplateController, 'objects'>,
  sharded: ShardedWork | undefined,
): void {
  const counted = (prefix: string) => (obj: KubernetesObject) =>
    !sharded || sharded.admits(prefix, objectKey(obj));
  // What they count changes with the cache and, sharded, with the members' view (what it admits).
  const views = () => sharded?.views() ?? 0;
  metrics.watchObjects(
    'AgentDeployment',
    () =>
      agentDeployments.objects
        .list()
        .flatMap((obj) => fullObject(obj) ?? [])
        .filter(counted('')),
    () => [agentDeployments.objects.changes(), views()],
  );
  metrics.watchObjects(
    'SandboxTemplate',
    () => sandboxTemplates.objects.list().filter(counted(TEMPLATE_SHARD_PREFIX)),
    () => [sandboxTemplates.objects.changes(), views()],
  );
  metrics.watchCache(
    () => {
      const count = { full: 0, projection: 0 };
      for (const obj of agentDeployments.objects.list()) {
        if (isProjection(obj)) count.projection += 1;
        else count.full += 1;
      }
      return [
        { kind: 'AgentDeployment', form: 'full', count: count.full },
        { kind: 'AgentDeployment', form: 'projection', count: count.projection },
        // Few, and read whole by the template import: always cached in full.
        { kind: 'SandboxTemplate', form: 'full', count: sandboxTemplates.objects.list().length },
      ];
    },
    () => [agentDeployments.objects.changes(), sandboxTemplates.objects.changes()],
  );
}
