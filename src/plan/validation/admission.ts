/**
 * Whether the API server admits an object: its server-side dry run with a cluster, else the same
 * validation offline (the CRDs' schema and rules). Offline, the rules that compare with the stored
 * object (immutable fields) cannot run: the plan meets those later, when the control plane differs.
 */
import type { InputObject, PlanWorld } from '../model.ts';
import { type OfflineValidator, offlineValidator } from './crd-validator.ts';

let validator: OfflineValidator | undefined;

/** The refusal, or undefined when the object is admitted. */
export async function admission(
  input: InputObject,
  namespace: string,
  world: PlanWorld,
  notes: string[],
): Promise<string | undefined> {
  const obj = { ...input, metadata: { ...input.metadata, namespace } };
  if (world.kube) return world.kube.dryRun(obj);
  notes.push(
    "no cluster: validated offline against the CRDs' schema and rules, as the API server validates a create (rules comparing with the stored object, such as immutable fields, need the cluster)",
  );
  validator ??= offlineValidator();
  return validator.refusal(obj);
}
