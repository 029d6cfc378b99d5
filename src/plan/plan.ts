/** A plan of every object given: each planned on its own, in the order given. */
import { planAgentDeployment } from './agentdeployment.ts';
import type { InputSecret } from './inputs.ts';
import type { InputObject, PlanEntry, PlanKind, PlanWorld } from './model.ts';
import { planSandboxTemplate } from './sandboxtemplate.ts';

export async function planObjects(
  objects: readonly (InputObject & { kind: PlanKind })[],
  defaultNamespace: string,
  world: PlanWorld,
  secrets: readonly InputSecret[] = [],
): Promise<PlanEntry[]> {
  const given = new Map(secrets.map((s) => [`${s.namespace ?? defaultNamespace}/${s.name}`, s.data]));
  world = { ...world, inputSecret: (namespace, name) => given.get(`${namespace}/${name}`) };
  const entries: PlanEntry[] = [];
  for (const obj of objects) {
    const namespace = obj.metadata.namespace ?? defaultNamespace;
    const planner = obj.kind === 'AgentDeployment' ? planAgentDeployment : planSandboxTemplate;
    try {
      entries.push(await planner(obj, namespace, world));
    } catch (err) {
      // A failed read (the control plane unreachable, a 403) is this object's, not the whole plan's.
      entries.push({
        kind: obj.kind,
        namespace,
        name: obj.metadata.name,
        action: 'unknown',
        reason: 'ReadFailed',
        message: err instanceof Error ? err.message : String(err),
        notes: [],
      });
    }
  }
  return entries;
}
