/**
 * A plan of every object given: each planned on its own, in the order given. With `prune` (a label
 * selector), the AgentDeployments of the objects' namespaces that match it and are not given follow:
 * what deleting each would do (prune.ts).
 */
import { planAgentDeployment } from './agentdeployment.ts';
import type { InputSecret } from './inputs.ts';
import type { InputObject, PlanEntry, PlanKind, PlanWorld } from './model.ts';
import { planRemoved } from './prune.ts';
import { planSandboxTemplate } from './sandboxtemplate.ts';

export async function planObjects(
  objects: readonly (InputObject & { kind: PlanKind })[],
  defaultNamespace: string,
  world: PlanWorld,
  secrets: readonly InputSecret[] = [],
  prune?: { selector: string },
): Promise<PlanEntry[]> {
  const given = new Map(secrets.map((s) => [`${s.namespace ?? defaultNamespace}/${s.name}`, s.data]));
  world = {
    ...world,
    inputSecret: (namespace, name) => given.get(`${namespace}/${name}`),
    // The readers of a plan are those of the namespace it plans for, unless --show-values-in names others.
    valuesNamespaces: world.valuesNamespaces ?? [defaultNamespace],
  };
  const entries: PlanEntry[] = [];
  for (const obj of objects) {
    const namespace = obj.metadata.namespace ?? defaultNamespace;
    const planner = obj.kind === 'AgentDeployment' ? planAgentDeployment : planSandboxTemplate;
    entries.push(await orReadFailed(obj.kind, namespace, obj.metadata.name, planner(obj, namespace, world)));
  }
  if (prune) {
    const { kube } = world;
    if (!kube) throw new Error('--prune reads the cluster: it cannot be used with --no-cluster');
    const given = new Set(
      objects
        .filter((o) => o.kind === 'AgentDeployment')
        .map((o) => `${o.metadata.namespace ?? defaultNamespace}/${o.metadata.name}`),
    );
    const namespaces = new Set([
      defaultNamespace,
      ...objects.map((o) => o.metadata.namespace ?? defaultNamespace),
    ]);
    for (const namespace of [...namespaces].sort()) {
      const matching = await kube.agentDeploymentsMatching(namespace, prune.selector);
      for (const live of matching) {
        if (given.has(`${namespace}/${live.metadata.name}`)) continue;
        const found = { ...live, metadata: { ...live.metadata, namespace } };
        entries.push(
          await orReadFailed('AgentDeployment', namespace, live.metadata.name, planRemoved(found, world)),
        );
      }
    }
  }
  return entries;
}

/** A failed read (the control plane unreachable, a 403) is this object's, not the whole plan's. */
async function orReadFailed(
  kind: PlanKind,
  namespace: string,
  name: string,
  planned: Promise<PlanEntry>,
): Promise<PlanEntry> {
  try {
    return await planned;
  } catch (err) {
    return {
      kind,
      namespace,
      name,
      action: 'unknown',
      reason: 'ReadFailed',
      message: err instanceof Error ? err.message : String(err),
      notes: [],
    };
  }
}
